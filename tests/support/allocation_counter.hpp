// Counts heap allocations of the current thread (test support). allocation_counter.cpp replaces
// malloc, calloc and realloc in each test binary (operator new and Eigen's allocator end there);
// the counter only runs inside allocations_in, so the other tests of a binary are unaffected. Under
// sanitizers, which own malloc, nothing is replaced and counting_available() is false.
#pragma once

namespace skograph::testing_support {

bool counting_available();
void start_counting_allocations();
long stop_counting_allocations();  // allocations since start_counting_allocations()

// Makes `pointer` visible to the outside, so the compiler cannot elide an allocation whose memory
// a test never uses (GCC removes unused malloc/free pairs at -O2).
void keep_alive(const void* pointer);

// Number of allocations made by `body` on this thread.
template <typename Body>
long allocations_in(Body&& body) {
  start_counting_allocations();
  body();
  return stop_counting_allocations();
}

}  // namespace skograph::testing_support
