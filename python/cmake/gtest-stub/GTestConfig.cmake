# An empty GoogleTest for building the library alone (python/CMakeLists.txt): the test targets
# are defined against it and never built.
set(GTest_FOUND TRUE)
foreach(t gtest gtest_main)
  if(NOT TARGET GTest::${t})
    add_library(GTest::${t} INTERFACE IMPORTED)
  endif()
endforeach()
