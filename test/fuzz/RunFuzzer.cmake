# Runs the frontend fuzzer for a bounded time over a corpus seeded with every
# .plx file under SEEDS. Fails on any crash, sanitizer report or timeout.
string(REPLACE "^^" ";" seed_dirs "${SEEDS}")
file(REMOVE_RECURSE "${WORK}")
file(MAKE_DIRECTORY "${WORK}")
foreach(dir ${seed_dirs})
  file(GLOB_RECURSE seeds "${dir}/*.plx")
  foreach(seed ${seeds})
    get_filename_component(name "${seed}" NAME)
    string(MD5 tag "${seed}")
    file(COPY_FILE "${seed}" "${WORK}/${tag}-${name}")
  endforeach()
endforeach()
execute_process(
  COMMAND "${FUZZER}" -seed=1 -runs=30000 -max_len=2048 -timeout=10
          -rss_limit_mb=2048 -print_final_stats=1 "${WORK}"
  RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "the frontend fuzzer found a problem (exit ${rc})")
endif()
