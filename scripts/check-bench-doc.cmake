# ctest bench-doc-up-to-date-<bench>: reruns a bench with --markdown and
# compares the table it writes with the committed copy under docs/generated/.
# The bench's own exit status is not the question here (its checks include
# wall-time budgets, which a loaded machine may miss); a bench that writes
# no table fails, and so does a table that differs.
# Usage: cmake -DBENCH=<exe> -DOUT=<tmp.md> -DDOC=<docs/generated/x.md> -P this
file(REMOVE ${OUT})
execute_process(COMMAND ${BENCH} --markdown ${OUT}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT EXISTS ${OUT})
  message(FATAL_ERROR "${BENCH} --markdown ${OUT} wrote nothing (exit ${rc})")
endif()
if(NOT rc EQUAL 0)
  message(STATUS "${BENCH} exited with ${rc} (a check of its own failed)")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${OUT} ${DOC}
                RESULT_VARIABLE differ)
if(NOT differ EQUAL 0)
  message(FATAL_ERROR "${DOC} is not what ${BENCH} prints now; run "
                      "scripts/update-bench-docs.sh (diff ${OUT} ${DOC})")
endif()
