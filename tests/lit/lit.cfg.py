# lit configuration for wave-cpp: FileCheck tests of the dialect, the passes and the IR of
# the example kernels. Paths come from lit.site.cfg.py, which CMake writes into the build
# tree.
import os
import re

import lit.formats

config.name = "wave"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = config.wave_lit_source_dir
config.test_exec_root = config.wave_lit_binary_dir


# RUN lines name tools bare; each becomes the absolute path of the build's or LLVM's
# copy, so a test never picks up another one from PATH. The name must stand alone (not
# be part of a path, a file name or another tool's name).
def add_tool(name, directory):
    pattern = r"(?<![\w./-])" + re.escape(name) + r"(?![\w./-])"
    config.substitutions.append((pattern, os.path.join(directory, name)))


add_tool("wave-opt", config.wave_bin_dir)
for tool in ["FileCheck", "not", "split-file", "count"]:
    add_tool(tool, config.llvm_tools_dir)

# Other binaries of the build (the examples) and LLVM's tools are called by name.
config.environment["PATH"] = os.pathsep.join(
    [config.wave_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
