# `cmake --install` exports the package ppkit: find_package(ppkit) -> ppkit::ppkit.
include(CMakePackageConfigHelpers)
install(TARGETS ppkit ppkit_kokkos ppkit_kokkoskernels EXPORT ppkitTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/ppkit DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        FILES_MATCHING PATTERN "*.hpp")
# The C API: ppkit.h and one ppkit_<workload>.h per workload.
file(GLOB ppkit_c_headers ${PROJECT_SOURCE_DIR}/include/ppkit*.h)
install(FILES ${ppkit_c_headers} ${PROJECT_BINARY_DIR}/generated/ppkit_version.hpp
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
if(PPKIT_ENABLE_FORTRAN)  # ppkit::fortran: `use ppkit` (fortran/ppkit.f90)
  install(TARGETS ppkit_fortran EXPORT ppkitTargets
          LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
  install(FILES ${PROJECT_BINARY_DIR}/fortran/mod/ppkit.mod
          DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/ppkit/fortran)
endif()
install(EXPORT ppkitTargets NAMESPACE ppkit:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ppkit)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/ppkitConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ppkitConfig.cmake INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ppkit)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/ppkitConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ppkitConfig.cmake ${PROJECT_BINARY_DIR}/ppkitConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/ppkit)
