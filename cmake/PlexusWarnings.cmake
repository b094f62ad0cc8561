# Warning flags for Plexus' own targets (generated code is exempted where noted).
set(PLEXUS_WARNING_FLAGS -Wall -Wextra)
function(plexus_warnings target)
  target_compile_options(${target} PRIVATE ${PLEXUS_WARNING_FLAGS})
endfunction()
