#include "skograph/config.hpp"

namespace skograph {

const char* version() {
  return SKOGRAPH_VERSION;
}

}  // namespace skograph
