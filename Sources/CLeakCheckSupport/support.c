// Memory and image access for LeakCheck's retain-path search. Linux with glibc only; elsewhere
// every function reports that it is unsupported and the search walks stored values only.
#if defined(__linux__)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <sys/uio.h>
#include <unistd.h>
#endif

#include "CLeakCheckSupport.h"

// Both always exported by the Swift runtime the module links.
__attribute__((swiftcall)) extern const void *swift_getTypeByMangledNameInContext(
    const char *name, size_t length, const void *context, const void *const *arguments);
// The form that builds `~Copyable` types too (the first gives `()` for them, as old reflection
// expects); weak, since older runtimes lack it.
__attribute__((swiftcall, weak)) extern const void *swift_getTypeByMangledNameInContext2(
    const char *name, size_t length, const void *context, const void *const *arguments);
extern char *swift_demangle(const char *name, size_t length, char *buffer, size_t *size, uint32_t flags);

const void *lc_type_by_mangled_name(const char *name, size_t length, const void *context, const void *const *arguments) {
    if (swift_getTypeByMangledNameInContext2) {
        return swift_getTypeByMangledNameInContext2(name, length, context, arguments);
    }
    return swift_getTypeByMangledNameInContext(name, length, context, arguments);
}

char *lc_demangle(const char *name, size_t length) {
    return swift_demangle(name, length, 0, 0, 0);
}

#if defined(__linux__)

int lc_copy_memory(uintptr_t address, void *buffer, size_t length) {
    if (length == 0) return 1;
    struct iovec local = { buffer, length };
    struct iovec remote = { (void *)address, length };
    ssize_t copied = process_vm_readv(getpid(), &local, 1, &remote, 1, 0);
    return copied == (ssize_t)length;
}

size_t lc_block_size(uintptr_t address) {
    if (address < 4096 || address % 16 != 0) return 0;
    uint64_t header = 0;
    if (!lc_copy_memory(address - 8, &header, 8)) return 0;
    uint64_t size = header & ~(uint64_t)7;
    int mapped = (header & 2) != 0;
    if (size < 32 || size > ((uint64_t)1 << 32)) return 0;
    if (mapped) return (size_t)(size - 16);
    // The next chunk's header must be readable and sane too, or this was not a chunk.
    uint64_t next = 0;
    if (!lc_copy_memory(address - 16 + size + 8, &next, 8)) return 0;
    uint64_t nextSize = next & ~(uint64_t)7;
    if (nextSize < 16 || nextSize > ((uint64_t)1 << 32)) return 0;
    return (size_t)(size - 8);
}

struct segment_walk {
    void *context;
    lc_segment_visitor visitor;
};

static int visit_image(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size;
    struct segment_walk *walk = data;
    for (int index = 0; index < info->dlpi_phnum; index++) {
        const ElfW(Phdr) *header = &info->dlpi_phdr[index];
        if (header->p_type != PT_LOAD || (header->p_flags & PF_W) == 0) continue;
        walk->visitor(walk->context, info->dlpi_name ? info->dlpi_name : "", info->dlpi_addr,
                      info->dlpi_addr + header->p_vaddr, header->p_memsz);
    }
    return 0;
}

int lc_in_image(uintptr_t address) {
    Dl_info info;
    return dladdr((void *)address, &info) != 0 && info.dli_fbase != 0;
}

int lc_writable_segments(void *context, lc_segment_visitor visitor) {
    struct segment_walk walk = { context, visitor };
    dl_iterate_phdr(visit_image, &walk);
    return 1;
}

#else

int lc_in_image(uintptr_t address) {
    (void)address;
    return 0;
}

int lc_copy_memory(uintptr_t address, void *buffer, size_t length) {
    (void)address; (void)buffer; (void)length;
    return 0;
}

size_t lc_block_size(uintptr_t address) {
    (void)address;
    return 0;
}

int lc_writable_segments(void *context, lc_segment_visitor visitor) {
    (void)context; (void)visitor;
    return 0;
}

#endif
