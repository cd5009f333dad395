# The tests CTest runs, by label, for the build tree and for the GPU bundle's CMake project alike
# (cmake/bundle.cmake), given a target kernel_tests (built, or imported from the bundle):
#   gpu        every GoogleTest test, one CTest test each, and the Go tests
#   memcheck   compute-sanitizer memcheck over the GoogleTest binary, one test a suite
#   racecheck  racecheck over each suite's shared-memory tests
#   python     the Python package's tests (python/tests: host-only ones, and GPU ones that skip without one)
# e.g. `ctest -L gpu`, `ctest -L memcheck -R Redukcija`. Without a GPU every GPU test is skipped,
# with its reason; a sanitizer test is skipped too (cmake/sanitize.sh), never passed.
# TECAJ_GO_TESTS: the bundle's `go test -c` binaries (go-PKG.test, each run in TECAJ_GO_SRC/PKG,
# beside its testdata, with the commands of TECAJ_BIN_DIR and the libtecaj.so of TECAJ_LIB_DIR);
# unset: `go test ./...` in the source tree.
include(GoogleTest)
# (gtest's "[  SKIPPED ] Suite.Test (0 ms)" matched with no bracket in the pattern: CMake 3 passes it on as a
# list item, which a bracket splits wrongly, and CMake 4 inside a bracket argument, which "]]]" ends early)
gtest_discover_tests(kernel_tests DISCOVERY_MODE PRE_TEST DISCOVERY_TIMEOUT 60
                     PROPERTIES SKIP_REGULAR_EXPRESSION "  SKIPPED . .* ms" LABELS "gpu;gtest")

# The sanitizers' tests are made when CTest starts, from the binary's own list of suites (as
# gtest_discover_tests makes its tests), so that a new suite is sanitized without a change here.
file(GENERATE OUTPUT "${CMAKE_CURRENT_BINARY_DIR}/sanitizer_tests_include.cmake" CONTENT
"set(TECAJ_KERNEL_TESTS [==[$<TARGET_FILE:kernel_tests>]==])
set(TECAJ_SANITIZE [==[${CMAKE_CURRENT_LIST_DIR}/sanitize.sh]==])
include([==[${CMAKE_CURRENT_LIST_DIR}/sanitizer_tests.cmake]==])
")
set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES "${CMAKE_CURRENT_BINARY_DIR}/sanitizer_tests_include.cmake")

if(TECAJ_GO_TESTS)
  foreach(bin ${TECAJ_GO_TESTS})
    get_filename_component(name ${bin} NAME_WE)
    string(REGEX REPLACE "^go-" "" pkg ${name})
    add_test(NAME go.${pkg} COMMAND ${bin} -test.v WORKING_DIRECTORY ${TECAJ_GO_SRC}/${pkg})
    set_tests_properties(go.${pkg} PROPERTIES LABELS "gpu;go" RUN_SERIAL TRUE
                         ENVIRONMENT "TECAJ_BIN=${TECAJ_BIN_DIR}"
                         ENVIRONMENT_MODIFICATION "LD_LIBRARY_PATH=path_list_prepend:${TECAJ_LIB_DIR}")
  endforeach()
else()
  find_program(GO_EXECUTABLE go)
  if(GO_EXECUTABLE)
    add_test(NAME go-test COMMAND ${GO_EXECUTABLE} test ./... WORKING_DIRECTORY ${CMAKE_SOURCE_DIR})
    set_tests_properties(go-test PROPERTIES LABELS "gpu;go" RUN_SERIAL TRUE)
  else()
    message(WARNING "go not found: CTest will not run `go test ./...`")
  endif()
endif()

# The Python package over the library's libtecaj.so: TECAJ_PYTHON_DIR (python/),
# TECAJ_PYTHON_LIBRARY (the shared library) and TECAJ_INCLUDE (the ABI's headers; the bundle sets all
# three). It needs python3 with numpy.
if(NOT DEFINED TECAJ_PYTHON_DIR)
  set(TECAJ_PYTHON_DIR ${CMAKE_SOURCE_DIR}/python)
  set(TECAJ_PYTHON_LIBRARY $<TARGET_FILE:tecaj_shared>)
  set(TECAJ_INCLUDE ${CMAKE_SOURCE_DIR}/cuda/include)
endif()
find_package(Python3 COMPONENTS Interpreter)
# python.host: planning, domains, dtypes, errors, caching, the ABI's layout (no GPU needed);
# python.gpu: every program and variant on CuPy and PyTorch arrays, skipped (not passed) where there
# is no GPU or neither framework.
if(Python3_Interpreter_FOUND AND EXISTS ${TECAJ_PYTHON_DIR}/tests)
  add_test(NAME python.host COMMAND ${Python3_EXECUTABLE} -m unittest -v test_host test_abi_layout
           WORKING_DIRECTORY ${TECAJ_PYTHON_DIR}/tests)
  add_test(NAME python.gpu COMMAND ${Python3_EXECUTABLE} -m unittest -v test_gpu WORKING_DIRECTORY ${TECAJ_PYTHON_DIR}/tests)
  set_tests_properties(python.host python.gpu PROPERTIES
                       ENVIRONMENT "PYTHONPATH=${TECAJ_PYTHON_DIR};TECAJ_LIBRARY=${TECAJ_PYTHON_LIBRARY};TECAJ_INCLUDE=${TECAJ_INCLUDE}")
  set_tests_properties(python.host PROPERTIES LABELS "gpu;python")
  set_tests_properties(python.gpu PROPERTIES LABELS "gpu;python"
                       SKIP_REGULAR_EXPRESSION "skipped .tecaj: no NVIDIA driver;skipped .neither CuPy nor PyTorch")
else()
  message(WARNING "python3 or python/tests not found: CTest will not run the Python package's tests")
endif()
