# plexus_mpiexec_flags(<var>): the flags every mpirun of the tests needs on
# this machine. Open MPI wants --oversubscribe to start more ranks than
# cores, and refuses to start as root without --allow-run-as-root.
function(plexus_mpiexec_flags out)
  set(flags)
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
    OUTPUT_VARIABLE version ERROR_QUIET)
  if(version MATCHES "Open MPI|OpenRTE")
    list(APPEND flags --oversubscribe)
    execute_process(COMMAND id -u OUTPUT_VARIABLE uid
      OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    if(uid STREQUAL "0")
      list(APPEND flags --allow-run-as-root)
    endif()
  endif()
  set(${out} ${flags} PARENT_SCOPE)
endfunction()
