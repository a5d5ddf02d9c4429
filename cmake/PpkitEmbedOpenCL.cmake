# ppkit_embed_opencl(<target> <file.cl>...): each kernel file becomes a C++
# string constant ppkit::opencl::sources::<stem> in generated/opencl_<stem>.hpp,
# so binaries carry their kernels and need no files at run time.
function(ppkit_embed_opencl target)
  foreach(cl IN LISTS ARGN)
    get_filename_component(abs ${cl} ABSOLUTE)
    get_filename_component(stem ${cl} NAME_WE)
    set(out ${PROJECT_BINARY_DIR}/generated/opencl_${stem}.hpp)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${CMAKE_COMMAND} -DIN=${abs} -DOUT=${out} -DSTEM=${stem}
              -P ${PROJECT_SOURCE_DIR}/cmake/PpkitEmbedFile.cmake
      DEPENDS ${abs} ${PROJECT_SOURCE_DIR}/cmake/PpkitEmbedFile.cmake
      COMMENT "Embedding OpenCL kernel ${stem}.cl")
    target_sources(${target} PRIVATE ${out})
    list(APPEND outputs ${out})
  endforeach()
  # The rules above live in the calling directory, which may not be the one
  # that defines <target>; Makefile generators only run them through a custom
  # target of this directory that <target> depends on.
  string(MD5 tag "${CMAKE_CURRENT_SOURCE_DIR}")
  string(SUBSTRING ${tag} 0 8 tag)
  add_custom_target(ppkit_opencl_kernels_${tag} DEPENDS ${outputs})
  add_dependencies(${target} ppkit_opencl_kernels_${tag})
endfunction()
