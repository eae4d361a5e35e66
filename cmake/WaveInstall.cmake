# `cmake --install`: the headers, the JIT's libraries, wave-opt, and a CMake package, so
# that another project's find_package(wave CONFIG) gives wave::wave (the header-only front
# end) and wave::jit (the compiler and runtime). The package finds the same MLIR 22 the
# libraries were built against. Only builds that link the shared LLVM/MLIR (the default)
# install a package: a WAVE_STATIC_LLVM build links archives by path, for carried binaries.
include(CMakePackageConfigHelpers)

if(NOT WAVE_STATIC_LLVM)
  set(_wave_libs WaveDialect WaveImport WaveAnalysis WaveTransforms WaveLowering WaveTarget WaveRuntime)
  install(TARGETS wave_headers wave_jit ${_wave_libs} EXPORT waveTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(TARGETS wave-opt RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/wave DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(FILES ${PROJECT_BINARY_DIR}/include/wave/version.hpp DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/wave)
  install(EXPORT waveTargets NAMESPACE wave:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wave)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/waveConfig.cmake.in
                                ${PROJECT_BINARY_DIR}/waveConfig.cmake
                                INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wave)
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/waveConfigVersion.cmake
                                   COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/waveConfig.cmake ${PROJECT_BINARY_DIR}/waveConfigVersion.cmake
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/wave)
endif()
