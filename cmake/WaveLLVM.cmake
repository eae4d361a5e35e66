# How wave-cpp targets see LLVM/MLIR.
#
# wave_link_mlir(<target> <PUBLIC|PRIVATE> <components...>) links the named MLIR/LLVM
# components: the individual static archives when WAVE_STATIC_LLVM is on (the binary then
# runs where no LLVM is installed), otherwise the shared libMLIR/libLLVM (fast links for
# development and CI). Mixing the two in one binary duplicates every TypeID, so the choice
# is global.

function(wave_mlir_includes target)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${LLVM_DEFINITIONS})
  # LLVM is built without RTTI; classes deriving from its types must match.
  target_compile_options(${target} PRIVATE -fno-rtti)
endfunction()

function(wave_link_mlir target visibility)
  if(WAVE_STATIC_LLVM)
    target_link_libraries(${target} ${visibility} ${ARGN})
  else()
    target_link_libraries(${target} ${visibility} MLIR LLVM)
  endif()
endfunction()
