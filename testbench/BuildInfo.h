#pragma once
// What built this binary: the project version (CMakeLists.txt) and `git describe --always
// --dirty --tags` of the source tree at build time (defined in the generated BuildInfo.cpp,
// cmake/BuildInfoScript.cmake). `wsc --version` prints both; every --stats header records them.
namespace wsc::tb {

class BuildInfo {
  public:
    static const char* version();
    static const char* gitDescribe();
};

}  // namespace wsc::tb
