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
