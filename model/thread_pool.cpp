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

// One call's parts: the next part to claim and how many are still running or unclaimed.
struct Job {
  const std::function<void(int)>* part = nullptr;
  int parts = 0;
  std::atomic<int> next{0};
  int unfinished = 0;  // guarded by the pool's mutex
  std::condition_variable finished;
};

// The workers wait for jobs with parts left to claim. Workers are detached and the pool is never
// destroyed: at exit they may still be waiting on its condition variable, which must outlive
// them; a pointer kept in a static is not a leak to LeakSanitizer.
class Pool {
 public:
  void run(int parts, const std::function<void(int)>& part) {
    Job job;
    job.part = &part;
    job.parts = parts;
    job.unfinished = parts;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      // The caller runs parts too, so any number of workers finishes a call: no more are kept
      // than the machine runs at once, and a thread the system refuses is done without.
      const int wanted = std::min(parts - 1, worker_limit());
      try {
        while (workers_ < wanted) {
          std::thread(&Pool::work, this).detach();
          ++workers_;
        }
      } catch (const std::system_error&) {
      }
      jobs_.push_back(&job);
    }
    work_available_.notify_all();
    // The caller claims parts too, so a call never waits for a busy pool to reach it.
    for (int p; (p = job.next.fetch_add(1)) < parts;) finish(job, p);
    std::unique_lock<std::mutex> lock(mutex_);
    std::erase(jobs_, &job);
    job.finished.wait(lock, [&] { return job.unfinished == 0; });
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
  void finish(Job& job, int p) {
    (*job.part)(p);
    const std::lock_guard<std::mutex> lock(mutex_);
    if (--job.unfinished == 0) job.finished.notify_all();
  }

  void work() {
    std::unique_lock<std::mutex> lock(mutex_);
    for (;;) {
      work_available_.wait(lock, [&] { return !jobs_.empty(); });
      Job* job = jobs_.front();
      const int p = job->next.fetch_add(1);
      if (p >= job->parts) {
        // Every part is claimed: the job leaves the queue (its caller may have removed it).
        std::erase(jobs_, job);
        continue;
      }
      lock.unlock();
      (*job->part)(p);
      lock.lock();
      if (--job->unfinished == 0) job->finished.notify_all();
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

void run_parts(int parts, const std::function<void(int)>& part) {
  if (parts <= 1) {
    if (parts == 1) part(0);
    return;
  }
  pool().run(parts, part);
}

}  // namespace skograph::model_detail
