#include "support/allocation_counter.hpp"

#include <cstddef>

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define SKOGRAPH_COUNT_MALLOC 0
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer) || \
    __has_feature(memory_sanitizer)
#define SKOGRAPH_COUNT_MALLOC 0
#endif
#endif
#ifndef SKOGRAPH_COUNT_MALLOC
#define SKOGRAPH_COUNT_MALLOC 1
#endif

namespace {
thread_local bool counting = false;
thread_local long count = 0;
}  // namespace

// Every allocating entry point counts: GCC turns malloc + zeroing into calloc, and Eigen's
// conservativeResize reaches realloc.
#if SKOGRAPH_COUNT_MALLOC
extern "C" void* __libc_malloc(std::size_t size);
extern "C" void* __libc_calloc(std::size_t count, std::size_t size);
extern "C" void* __libc_realloc(void* pointer, std::size_t size);
extern "C" void* malloc(std::size_t size) {
  if (counting) ++count;
  return __libc_malloc(size);
}
extern "C" void* calloc(std::size_t elements, std::size_t size) {
  if (counting) ++count;
  return __libc_calloc(elements, size);
}
extern "C" void* realloc(void* pointer, std::size_t size) {
  if (counting) ++count;
  return __libc_realloc(pointer, size);
}
#endif

namespace skograph::testing_support {

bool counting_available() {
  return SKOGRAPH_COUNT_MALLOC != 0;
}

void start_counting_allocations() {
  count = 0;
  counting = true;
}

void keep_alive(const void* pointer) {
  asm volatile("" : : "g"(pointer) : "memory");
}

long stop_counting_allocations() {
  counting = false;
  return count;
}

}  // namespace skograph::testing_support
