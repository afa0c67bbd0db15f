//! The process's allocator tuning, in one place (glibc only; elsewhere these do nothing).
//!
//! Screenshots are the server's only large, short-lived allocations, and they run on
//! rotating blocking threads, each with its own glibc arena (measurements in
//! docs/performance.md):
//! - a decoded phone frame is several megabytes; after the first one is freed, glibc
//!   raises its mmap threshold to that size and later frames come from arenas that keep
//!   the pages, so the resident size grows with every thread that took a screenshot. A
//!   fixed 1 MiB threshold keeps such buffers in their own mappings, returned on free
//!   ([`tune`]);
//! - the smaller buffers of PNG decoding and JPEG encoding still leave freed pages in the
//!   arenas, a little more after each screenshot until they are reused. [`release_freed`]
//!   hands those pages back after each screenshot.

/// Sets the allocator's mmap threshold. Process-wide, so the binary calls it once at
/// start-up rather than a library behind its back.
pub fn tune() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            const M_MMAP_THRESHOLD: std::ffi::c_int = -3;
            unsafe extern "C" {
                fn mallopt(param: std::ffi::c_int, value: std::ffi::c_int) -> std::ffi::c_int;
            }
            // SAFETY: mallopt only changes an allocator tuning parameter; valid at any time.
            unsafe {
                mallopt(M_MMAP_THRESHOLD, 1 << 20);
            }
        });
    }
}

/// Returns the free pages of every arena to the OS (`malloc_trim(0)`); cheap next to a
/// screenshot, so it runs after each screenshot, not on every call.
pub(crate) fn release_freed() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        unsafe extern "C" {
            fn malloc_trim(pad: usize) -> std::ffi::c_int;
        }
        // SAFETY: malloc_trim only releases memory the allocator holds free; valid at any time.
        unsafe {
            malloc_trim(0);
        }
    }
}
