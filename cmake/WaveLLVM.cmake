# How wave-cpp targets see LLVM/MLIR.
#
# wave_mlir_includes(<target>) adds the LLVM/MLIR headers and LLVM's compile settings.
#
# wave_link_mlir(<target> <PUBLIC|PRIVATE> <MLIR components...>) links the named MLIR
# components and what they need:
# - by default, the shared libMLIR/libLLVM (fast links for development and CI);
# - with WAVE_STATIC_LLVM, their static archives in one link group, so the binary runs
#   where no LLVM is installed (a GPU machine). Debian's MLIR targets name the LLVM dylib in
#   their link interface, so the archives are collected here by walking the targets, with
#   the static LLVM components (WAVE_LLVM_STATIC_COMPONENTS) in place of the dylib.
# Mixing the two in one binary duplicates every TypeID, so the choice is global.

# Which LLVM components stand in for the dylib. MLIR's link interface does not say which
# of LLVM it uses, so by default every component archive goes into the group; the linker
# takes only the members it needs.
file(GLOB _wave_llvm_archives ${LLVM_LIBRARY_DIR}/libLLVM*.a)
set(_wave_llvm_components)
# Left out: components whose own dependencies (libpfm, libxml2, libffi, curl) a GPU
# machine lacks, and which no compiler path of wave-cpp calls.
set(_wave_llvm_unused "^(Exegesis|WindowsManifest|Interpreter|Debuginfod)")
foreach(archive ${_wave_llvm_archives})
  get_filename_component(name ${archive} NAME_WE)
  string(REGEX REPLACE "^lib" "" name ${name})
  string(REGEX REPLACE "^LLVM" "" short ${name})
  if(TARGET ${name} AND NOT short MATCHES "${_wave_llvm_unused}")
    list(APPEND _wave_llvm_components ${name})
  endif()
endforeach()
set(WAVE_LLVM_STATIC_COMPONENTS ${_wave_llvm_components}
    CACHE STRING "LLVM component libraries linked in place of the LLVM dylib when static")

function(wave_mlir_includes target)
  target_include_directories(${target} SYSTEM PRIVATE ${LLVM_INCLUDE_DIRS} ${MLIR_INCLUDE_DIRS})
  target_compile_definitions(${target} PRIVATE ${LLVM_DEFINITIONS})
  # LLVM is built without RTTI; classes deriving from its types must match.
  target_compile_options(${target} PRIVATE -fno-rtti)
endfunction()

# The static archives of `components` and everything they link, and the system libraries
# they need, in `archives_out` and `system_out`.
function(wave_static_closure archives_out system_out)
  set(queue ${ARGN})
  set(seen)
  set(archives)
  set(system)
  while(queue)
    list(POP_FRONT queue lib)
    string(REGEX REPLACE "^\\$<LINK_ONLY:(.*)>$" "\\1" lib "${lib}")
    if(lib IN_LIST seen)
      continue()
    endif()
    list(APPEND seen ${lib})
    if(lib STREQUAL "LLVM")
      list(APPEND queue ${WAVE_LLVM_STATIC_COMPONENTS})
    elseif(lib STREQUAL "MLIR" OR lib STREQUAL "Polly")
      # The MLIR dylib, and Polly (built into Debian's LLVM as a plugin): not in static links.
    elseif(TARGET ${lib} AND NOT EXISTS ${LLVM_LIBRARY_DIR}/lib${lib}.a AND lib MATCHES "^(MLIR|LLVM)")
      # A header-only interface target: follow its dependencies.
      get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
      if(deps)
        list(APPEND queue ${deps})
      endif()
    elseif(TARGET ${lib} AND EXISTS ${LLVM_LIBRARY_DIR}/lib${lib}.a)
      list(APPEND archives ${LLVM_LIBRARY_DIR}/lib${lib}.a)
      get_target_property(deps ${lib} INTERFACE_LINK_LIBRARIES)
      if(deps)
        list(APPEND queue ${deps})
      endif()
    elseif(lib MATCHES "z3")
      # LLVM's optional SMT solver: never called by wave-cpp, and absent on GPU machines.
    elseif(lib STREQUAL "ZLIB::ZLIB" AND NOT TARGET ZLIB::ZLIB)
      list(APPEND system z)
    elseif(lib MATCHES "^zstd::" AND NOT TARGET ${lib})
      list(APPEND system -l:libzstd.so.1)  # Debian ships no libzstd.so without libzstd-dev
    elseif(lib MATCHES "::" AND NOT TARGET ${lib})
      # An optional dependency of a component wave-cpp does not use (CURL for Debuginfod).
    else()
      list(APPEND system ${lib})
    endif()
  endwhile()
  set(${archives_out} ${archives} PARENT_SCOPE)
  set(${system_out} ${system} PARENT_SCOPE)
endfunction()

function(wave_link_mlir target visibility)
  if(WAVE_STATIC_LLVM)
    wave_static_closure(archives system ${ARGN})
    target_link_libraries(${target} ${visibility}
      -Wl,--start-group ${archives} -Wl,--end-group -Wl,--as-needed ${system})
  else()
    target_link_libraries(${target} ${visibility} MLIR LLVM)
  endif()
endfunction()
