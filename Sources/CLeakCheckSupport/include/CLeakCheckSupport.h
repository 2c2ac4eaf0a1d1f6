#ifndef CLEAKCHECKSUPPORT_H
#define CLEAKCHECKSUPPORT_H

#include <stddef.h>
#include <stdint.h>

/// Copies `length` bytes at `address` of this process into `buffer` without touching them
/// directly: an unmapped or protected address fails (returns 0) instead of faulting.
/// Returns 1 when every byte was copied. Always 0 where the platform has no such call.
int lc_copy_memory(uintptr_t address, void *buffer, size_t length);

/// The bytes a malloc block starting at `address` can hold, read from the allocator's chunk
/// header (glibc) without trusting it: 0 when the header does not look like one.
size_t lc_block_size(uintptr_t address);

/// Called for each writable loaded segment of each image: `path` is the image file ("" for the
/// main executable), `base` the image's load bias, [start, start + size) the segment.
typedef void (*lc_segment_visitor)(void *context, const char *path, uintptr_t base, uintptr_t start, size_t size);

/// Lists the writable PT_LOAD segments of every loaded image. Returns 0 where unsupported.
int lc_writable_segments(void *context, lc_segment_visitor visitor);

/// Scans every resident private writable mapping of this process (the main thread's stack
/// excepted) for words equal to one of `targets` (Swift's spare pointer bits ignored): each hit's
/// address (`slots`), word (`values`) and, when its mapping is made of glibc's mmapped chunks, the
/// block that holds it (`blocks`, else 0), at most `max_hits` of them (4096 at most), copied out
/// when the scan is done. The scan's own state
/// lives in a mapping it skips. Stops after `budget_ns` nanoseconds (0 for no limit). Returns the
/// number of hits (more than `max_hits` when some were left out), -2 - hits when the deadline
/// stopped it, -1 where unsupported. `scanned_bytes` receives how much memory was compared.
long lc_scan_writable_memory(const uintptr_t *targets, size_t count, uintptr_t *slots, uintptr_t *values,
                             uintptr_t *blocks, size_t max_hits, uint64_t budget_ns, uint64_t *scanned_bytes);

/// The start of the malloc block (glibc) that holds `slot`: the nearest 16-byte aligned address at
/// or below it, at most `max_distance` bytes away, whose chunk header is sane and whose chunk covers
/// `slot`. 0 when none is found. A guess to be validated by what lies at the start.
uintptr_t lc_block_start(uintptr_t slot, size_t max_distance);

/// The address of a loaded image's exported symbol (`_NSConcreteMallocBlock`), or null.
const void *lc_symbol_address(const char *name);

/// The file of the image that holds `address` and its load address (`base`); null if none.
const char *lc_image_path(uintptr_t address, uintptr_t *base);

/// 1 when `address` lies inside a loaded image (code or data), 0 otherwise.
int lc_in_image(uintptr_t address);

/// The Swift runtime's type for a mangled type name ; nil when it cannot
/// build one. Wraps swift_getTypeByMangledNameInContext, which uses the Swift calling convention.
/// `context` (a type's context descriptor) and `arguments` (its metadata's generic arguments)
/// resolve generic parameters; both may be null.
const void *lc_type_by_mangled_name(const char *name, size_t length, const void *context, const void *const *arguments);

/// The Swift runtime's demangling of `name` (malloc'd; the caller frees it), or nil.
char *lc_demangle(const char *name, size_t length);

#endif
