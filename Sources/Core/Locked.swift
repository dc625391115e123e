import Foundation

/// A value behind a lock, with the API of `Synchronization.Mutex`, on a
/// `pthread_mutex_t`. The thread sanitizer sees this lock's acquire and release,
/// whereas `Mutex` locks with Linux futex calls it cannot see, so every access
/// inside `Mutex.withLock` from two threads is reported as a race there. All of
/// TrainKit's shared mutable state outside actors lives in one of these.
package final class Locked<Value>: @unchecked Sendable {
    // Sendability: `value` is read and written only between `pthread_mutex_lock` and
    // `pthread_mutex_unlock` of `mutex`, in `withLock`; the mutex is heap-allocated
    // so its address never changes.
    private let mutex: UnsafeMutablePointer<pthread_mutex_t>
    // The mutex already makes access exclusive; the runtime's own check would only
    // repeat it on every call.
    @exclusivity(unchecked) private var value: Value

    /// Puts `value` behind a new lock.
    package init(_ value: Value) {
        self.value = value
        mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        mutex.initialize(to: pthread_mutex_t())
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deinitialize(count: 1)
        mutex.deallocate()
    }

    /// Runs `body` with the value, holding the lock. `body` must not lock this lock again.
    package func withLock<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Runs `body` with the value if the lock is free now, without waiting.
    /// - Returns: What `body` returns, or nil if another thread holds the lock.
    package func withLockIfAvailable<Result, Failure: Error>(_ body: (inout Value) throws(Failure) -> Result) throws(Failure) -> Result? {
        guard pthread_mutex_trylock(mutex) == 0 else { return nil }
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
