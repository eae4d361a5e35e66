# Writes OUTPUT, a header defining WAVE_COMPILER_FINGERPRINT: one SHA-256 over the JIT's
# sources under SOURCE_DIR. The kernel cache keys on it, so that a changed compiler never
# serves PTX an older one generated. The file is rewritten only when the hash changes.
file(GLOB_RECURSE sources ${SOURCE_DIR}/*.cpp ${SOURCE_DIR}/*.h ${SOURCE_DIR}/*.td)
list(SORT sources)
set(hashes "")
foreach(source ${sources})
  file(SHA256 ${source} hash)
  string(APPEND hashes "${hash}")
endforeach()
string(SHA256 fingerprint "${hashes}")
file(WRITE ${OUTPUT}.new "#define WAVE_COMPILER_FINGERPRINT \"${fingerprint}\"\n")
file(COPY_FILE ${OUTPUT}.new ${OUTPUT} ONLY_IF_DIFFERENT)
file(REMOVE ${OUTPUT}.new)
