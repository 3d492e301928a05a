// The process-wide pool of worker threads that batches run on (model/batch.hpp): started on first
// use, kept between calls, grown to the largest number of threads a call has asked for. A call
// runs its parts on the pool's workers and on the calling thread itself; calls from several
// threads at once share the workers. After fork() the child starts with no workers (they do not
// exist there) and starts new ones on its first call, so Dask's and multiprocessing's forked
// workers can batch too.
#pragma once

#include <functional>

namespace skograph::model_detail {

// part(p) for p in [0, parts), each part once, on up to `threads` threads (the caller's among
// them), each thread claiming the next unclaimed part until none is left (so that more parts than
// threads balance a worker that wakes late); returns when every part has finished. Parts must not
// throw (the caller catches inside part) and must not fork. A part may itself run parts (the
// inner call's caller runs whatever no worker takes).
void run_parts(int parts, int threads, const std::function<void(int)>& part);

}  // namespace skograph::model_detail
