// The process-wide worker pool (model/thread_pool.hpp).
#include "thread_pool.hpp"

#include <pthread.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <new>
#include <system_error>
#include <thread>

namespace skograph::model_detail {

namespace {

// One call's parts: the next part to claim, how many are still running or unclaimed, how many
// workers may still join it and how many are in it.
struct Job {
  const std::function<void(int)>* part = nullptr;
  int parts = 0;
  std::atomic<int> next{0};
  int unfinished = 0;    // guarded by the pool's mutex
  int helpers_left = 0;  // guarded by the pool's mutex
  int helpers_in = 0;    // guarded by the pool's mutex
  std::condition_variable finished;
};

// The workers wait for jobs that still take helpers. Workers are detached and the pool is never
// destroyed: at exit they may still be waiting on its condition variable, which must outlive
// them; a pointer kept in a static is not a leak to LeakSanitizer.
class Pool {
 public:
  void run(int parts, int threads, const std::function<void(int)>& part) {
    Job job;
    job.part = &part;
    job.parts = parts;
    job.unfinished = parts;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // The caller runs parts too, so any number of workers finishes a call: no more are kept
      // than the machine runs at once, and a thread the system refuses is done without.
      const int wanted = std::min(threads - 1, worker_limit());
      try {
        while (workers_ < wanted) {
          std::thread(&Pool::work, this).detach();
          ++workers_;
        }
      } catch (const std::system_error&) {
      }
      job.helpers_left = std::min(threads - 1, workers_);  // no more than could ever join
      if (job.helpers_left > 0) jobs_.push_back(&job);
    }
    work_available_.notify_all();
    // The caller claims parts as the workers do, so a call never waits for a worker to wake:
    // whoever is running takes the next part.
    const int done = claim_parts(job);
    std::unique_lock<std::mutex> lock(mutex_);
    std::erase(jobs_, &job);
    job.unfinished -= done;
    job.finished.wait(lock, [&] { return job.unfinished == 0 && job.helpers_in == 0; });
  }

  // fork(): hold the mutex across it so that the child's copy is in a consistent state; the
  // child has none of the workers and none of the parent's calls.
  void before_fork() { mutex_.lock(); }
  void after_fork_in_parent() { mutex_.unlock(); }
  void after_fork_in_child() {
    mutex_.unlock();
    workers_ = 0;
    jobs_.clear();
    // Threads of the parent may have been waiting on it: start the child with a fresh one.
    new (&work_available_) std::condition_variable();
  }

 private:
  // Parts of `job` until none is left to claim; how many this thread ran.
  static int claim_parts(Job& job) {
    int done = 0;
    for (int p; (p = job.next.fetch_add(1)) < job.parts; ++done) (*job.part)(p);
    return done;
  }

  // A worker joins the first job that takes helpers (it leaves the queue when it has them all),
  // runs parts until none is left and leaves; the job's caller waits until it has.
  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_available_.wait(lock, [&] { return !jobs_.empty(); });
      Job* job = jobs_.front();
      if (--job->helpers_left <= 0) std::erase(jobs_, job);
      ++job->helpers_in;
      lock.unlock();
      const int done = claim_parts(*job);
      lock.lock();
      job->unfinished -= done;
      if (--job->helpers_in == 0 && job->unfinished == 0) job->finished.notify_all();
    }
  }

  static int worker_limit() {
    static const int limit = std::max(3, static_cast<int>(std::thread::hardware_concurrency()) - 1);
    return limit;
  }

  std::mutex mutex_;
  std::condition_variable work_available_;
  std::deque<Job*> jobs_;
  int workers_ = 0;
};

Pool& pool() {
  static Pool* const instance = [] {
    auto* made = new Pool();
    pthread_atfork([] { pool().before_fork(); }, [] { pool().after_fork_in_parent(); },
                   [] { pool().after_fork_in_child(); });
    return made;
  }();
  return *instance;
}

}  // namespace

void run_parts(int parts, int threads, const std::function<void(int)>& part) {
  if (parts <= 1 || threads <= 1) {
    for (int p = 0; p < parts; ++p) part(p);
    return;
  }
  pool().run(parts, threads, part);
}

}  // namespace skograph::model_detail
