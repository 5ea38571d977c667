#pragma once
// A fixed team of threads that run one function per cycle on every member and wait for all of
// them (Network::step's router visits with --threads). The caller is member 0; members 1..n-1
// are helper threads started once and kept between cycles, so a cycle costs a hand-over and a
// barrier, not a thread start. Both sides spin briefly before they block: on a mesh whose cycle
// takes microseconds the next hand-over comes before a sleep would pay off, on a large one the
// spin ends and they sleep on a condition variable. The team only runs fn on every member;
// how work is shared and in which order results are applied is the caller's (Network's
// threaded step takes chunks dynamically and applies them in a fixed chunk order).
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace wsc::noc {

class StepThreads {
  public:
    explicit StepThreads(unsigned members);
    ~StepThreads();
    StepThreads(const StepThreads&) = delete;
    StepThreads& operator=(const StepThreads&) = delete;

    unsigned members() const { return members_; }
    // Runs fn(0) on the caller and fn(m) on helper m for every m, returns when all returned.
    // What a member throws is rethrown here once every helper is done (the lowest member's).
    // Callers that need every member's error keep them in their own results.
    void run(const std::function<void(unsigned)>& fn);
    // For members that wait on each other inside fn: spins until done() holds, yielding every
    // 256 spins (on a machine with more threads than cores a spinning member would otherwise
    // hold the core the one it waits for needs); false as soon as give_up() holds instead.
    template <class Done, class GiveUp>
    static bool await(Done done, GiveUp give_up) {
        for (uint32_t spins = 1; !done(); ++spins) {
            if (give_up()) return false;
            if (spins % 256 == 0)
                std::this_thread::yield();
            else
                pause();
        }
        return true;
    }

  private:
    static void pause();  // one step of a spin-wait (the CPU's pause hint)
    void helper(unsigned m);
    void stopAll();  // stops and joins the helpers
    // Spins until pred() holds or the spin budget is spent; true if it holds.
    template <class Pred>
    static bool spin(Pred pred);

    unsigned members_;
    std::vector<std::thread> helpers_;
    std::mutex mu_;
    std::condition_variable start_, done_;
    const std::function<void(unsigned)>* fn_ = nullptr;
    std::atomic<uint64_t> generation_{0};  // bumped per run(); a helper runs each one once
    std::atomic<unsigned> running_{0};     // helpers still inside this generation's fn
    std::atomic<bool> stop_{false};
    std::vector<std::exception_ptr> errors_;  // per member, for run() to rethrow
};

}  // namespace wsc::noc
