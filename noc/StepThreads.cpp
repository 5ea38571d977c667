#include "noc/StepThreads.h"

#include <exception>
#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#endif

namespace wsc::noc {

void StepThreads::pause() {
#if defined(__x86_64__) || defined(__i386__)
    _mm_pause();
#else
    std::this_thread::yield();
#endif
}

template <class Pred>
bool StepThreads::spin(Pred pred) {
    // About 20-50 us on current x86 cores: longer than a small mesh's cycle, far shorter than
    // the work of a cycle on a mesh large enough to be worth threads.
    for (int i = 0; i < 2000; ++i) {
        if (pred()) return true;
        pause();
    }
    return pred();
}

StepThreads::StepThreads(unsigned members)
    : members_(members < 1 ? 1 : members), errors_(members_) {
    helpers_.reserve(members_ - 1);
    try {
        for (unsigned m = 1; m < members_; ++m) helpers_.emplace_back([this, m] { helper(m); });
    } catch (...) {
        stopAll();  // the helpers already started must be joined before the vector goes
        throw;
    }
}

StepThreads::~StepThreads() {
    stopAll();
}

void StepThreads::stopAll() {
    {
        std::lock_guard<std::mutex> lock(mu_);
        stop_.store(true);
    }
    start_.notify_all();
    for (std::thread& t : helpers_)
        if (t.joinable()) t.join();
}

void StepThreads::run(const std::function<void(unsigned)>& fn) {
    if (members_ == 1) return fn(0);
    fn_ = &fn;
    running_.store(members_ - 1, std::memory_order_relaxed);
    {
        // Under the lock, so a helper between its check and its wait cannot miss the bump.
        std::lock_guard<std::mutex> lock(mu_);
        generation_.fetch_add(1, std::memory_order_release);
    }
    start_.notify_all();
    try {
        fn(0);
    } catch (...) {
        errors_[0] = std::current_exception();  // the helpers still use fn: wait for them first
    }
    auto done = [this] { return running_.load(std::memory_order_acquire) == 0; };
    if (!spin(done)) {
        std::unique_lock<std::mutex> lock(mu_);
        done_.wait(lock, done);
    }
    for (std::exception_ptr& e : errors_)
        if (e) {
            const std::exception_ptr first = e;
            for (std::exception_ptr& x : errors_) x = nullptr;
            std::rethrow_exception(first);
        }
}

void StepThreads::helper(unsigned m) {
    uint64_t seen = 0;
    for (;;) {
        auto ready = [&] {
            return stop_.load(std::memory_order_acquire) ||
                   generation_.load(std::memory_order_acquire) != seen;
        };
        if (!spin(ready)) {
            std::unique_lock<std::mutex> lock(mu_);
            start_.wait(lock, ready);
        }
        if (stop_.load(std::memory_order_acquire)) return;
        seen = generation_.load(std::memory_order_acquire);
        try {
            (*fn_)(m);
        } catch (...) {
            errors_[m] = std::current_exception();  // rethrown by run(), never terminate
        }
        if (running_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
            std::lock_guard<std::mutex> lock(mu_);  // pairs with run()'s wait, as above
            done_.notify_one();
        }
    }
}

}  // namespace wsc::noc
