# The GPU bundle's CMake project (scripts/gpu-bundle.sh copies it in as CMakeLists.txt): the same
# tests as the build tree's (cmake/tests.cmake), over the bundle's prebuilt binaries, so that the
# GPU host needs CMake's ctest but no compiler and no Go.
#   cmake -S BUNDLE -B BUILD && ctest --test-dir BUILD -L gpu
# TECAJ_KERNEL_TESTS and TECAJ_LIB_DIR choose another build of the library (run.sh's LIB=ptx75).
cmake_minimum_required(VERSION 3.25)
project(tecaj_bundle NONE)
set(TECAJ_KERNEL_TESTS ${CMAKE_SOURCE_DIR}/tests/kernel_tests CACHE FILEPATH "the GoogleTest binary")
set(TECAJ_LIB_DIR ${CMAKE_SOURCE_DIR}/lib CACHE PATH "the folder of libtecaj.so the Go tests load")
set(TECAJ_BIN_DIR ${CMAKE_SOURCE_DIR}/bin)
set(TECAJ_GO_SRC ${CMAKE_SOURCE_DIR}/src)
set(TECAJ_PYTHON_DIR ${CMAKE_SOURCE_DIR}/python)
set(TECAJ_PYTHON_LIBRARY ${TECAJ_LIB_DIR}/libtecaj.so)
set(TECAJ_INCLUDE ${CMAKE_SOURCE_DIR}/check/cuda/include)
file(GLOB TECAJ_GO_TESTS ${CMAKE_SOURCE_DIR}/tests/go-*.test)

enable_testing()
add_executable(kernel_tests IMPORTED)
set_target_properties(kernel_tests PROPERTIES IMPORTED_LOCATION ${TECAJ_KERNEL_TESTS})
include(cmake/tests.cmake)
