#pragma once
// Fixed-capacity FIFO: storage is allocated once at construction so hot paths never allocate.
#include <cassert>
#include <cstddef>
#include <stdexcept>
#include <vector>

namespace wsc::dram {

template <typename T>
class RingBuffer {
  public:
    explicit RingBuffer(size_t capacity = 0) : buf_(capacity) {}
    void reset(size_t capacity) {
        buf_.assign(capacity, T{});
        head_ = size_ = 0;
    }
    bool empty() const { return size_ == 0; }
    bool full() const { return size_ == buf_.size(); }
    size_t size() const { return size_; }
    size_t capacity() const { return buf_.size(); }
    void push(const T& v) {
        // Overflow is a caller bug that would silently corrupt the queue: fail loudly even in
        // release builds (one compare).
        if (full()) throw std::logic_error("RingBuffer overflow");
        buf_[(head_ + size_) % buf_.size()] = v;
        ++size_;
    }
    T& front() {
        assert(!empty());
        return buf_[head_];
    }
    const T& front() const {
        assert(!empty());
        return buf_[head_];
    }
    void pop() {
        assert(!empty());
        head_ = (head_ + 1) % buf_.size();
        --size_;
    }

  private:
    std::vector<T> buf_;
    size_t head_ = 0, size_ = 0;
};

}  // namespace wsc::dram
