# lit configuration for wave-cpp: FileCheck tests of the dialect, the passes and the IR of
# the example kernels.
import os

import lit.formats

config.name = "wave"
config.test_format = lit.formats.ShTest(execute_external=False)
config.suffixes = [".mlir", ".test"]
config.excludes = ["CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py"]
config.test_source_root = config.wave_lit_source_dir
config.test_exec_root = config.wave_lit_binary_dir

# wave-opt and the examples first, then FileCheck, not and split-file.
config.environment["PATH"] = os.pathsep.join(
    [config.wave_bin_dir, config.llvm_tools_dir, config.environment.get("PATH", "")])
