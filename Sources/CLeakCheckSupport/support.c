// Memory and image access for LeakCheck's retain-path search. Linux with glibc only; elsewhere
// every function reports that it is unsupported and the search walks stored values only.
#if defined(__linux__) && !defined(LEAKHISTORY_PORTABLE_CHECK)
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <time.h>
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

#if defined(__linux__) && !defined(LEAKHISTORY_PORTABLE_CHECK)

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

// The reverse scan. Its own state (the targets, the hits, the copy of the memory being compared)
// lives in one private mapping that the scan skips, so it never finds itself.

enum { SCAN_CHUNK = 1 << 20, SCAN_MAX_TARGETS = 4096, SCAN_MAX_HITS = 4096 };

struct scan_state {
    uintptr_t targets[SCAN_MAX_TARGETS];
    uintptr_t hit_slots[SCAN_MAX_HITS];
    uintptr_t hit_values[SCAN_MAX_HITS];
    uintptr_t hit_blocks[SCAN_MAX_HITS];
    unsigned char residency[SCAN_CHUNK / 4096];
    uintptr_t words[SCAN_CHUNK / sizeof(uintptr_t)] __attribute__((aligned(64)));
};

// Swift keeps enum tags in a heap pointer's spare bits (include/swift/ABI/System.h): a reference
// stored in a multi-payload enum is the address with some of these bits set.
#if defined(__x86_64__)
#define SWIFT_SPARE_BITS 0xFFFF800000000007ULL
#elif defined(__aarch64__)
#define SWIFT_SPARE_BITS 0xF000000000000007ULL
#else
#define SWIFT_SPARE_BITS 0x7ULL
#endif

static int contains_sorted(const uintptr_t *targets, size_t count, uintptr_t word) {
    size_t low = 0, high = count;
    while (low < high) {
        size_t middle = (low + high) / 2;
        uintptr_t value = targets[middle];
        if (value == word) return 1;
        if (value < word) low = middle + 1; else high = middle;
    }
    return 0;
}

// The index of the first word at or after `index` whose value (spare bits cleared) lies in
// [low, high], or `count`. The one loop that touches every word: in assembly on x86_64 so that it
// is fast in a debug build too (SwiftPM compiles C at -O0 there, and a package may not pass its own
// optimisation flags); plain C elsewhere.
static size_t next_in_range(const uintptr_t *words, size_t index, size_t count, uintptr_t low, uintptr_t high) {
    const uintptr_t mask = ~(uintptr_t)SWIFT_SPARE_BITS, span = high - low;
#if defined(__x86_64__)
    __asm__ volatile(
        "1:\n\t"
        "cmpq %[count], %[index]\n\t"
        "jae 2f\n\t"
        "movq (%[words],%[index],8), %%rax\n\t"
        "andq %[mask], %%rax\n\t"
        "subq %[low], %%rax\n\t"
        "cmpq %[span], %%rax\n\t"
        "jbe 2f\n\t"
        "incq %[index]\n\t"
        "jmp 1b\n\t"
        "2:\n\t"
        : [index] "+r"(index)
        : [words] "r"(words), [count] "r"(count), [mask] "r"(mask), [low] "r"(low), [span] "r"(span)
        : "rax", "cc", "memory");
    return index;
#else
    for (; index < count; index++) {
        if ((words[index] & mask) - low <= span) return index;
    }
    return count;
#endif
}

static long note_hit(struct scan_state *state, uintptr_t run, size_t index, size_t count, uintptr_t lowest,
                     uintptr_t highest, size_t max_hits, long hits) {
    uintptr_t word = state->words[index] & ~(uintptr_t)SWIFT_SPARE_BITS;
    if (word < lowest || word > highest || !contains_sorted(state->targets, count, word)) return hits;
    if ((size_t)hits < max_hits) {
        state->hit_slots[hits] = run + index * sizeof(uintptr_t);
        state->hit_values[hits] = word;
    }
    return hits + 1;
}

static uint64_t now_ns(void) {
    struct timespec time;
    clock_gettime(CLOCK_MONOTONIC, &time);
    return (uint64_t)time.tv_sec * 1000000000u + (uint64_t)time.tv_nsec;
}

static int sort_words(const void *a, const void *b) {
    uintptr_t x = *(const uintptr_t *)a, y = *(const uintptr_t *)b;
    return x < y ? -1 : x > y;
}

// The mmapped chunk (glibc: its own mapping, the IS_MMAPPED bit in its header, sizes in pages)
// of the mapping [start, end) that holds `slot`, walking the chunks from the mapping's start
// (the kernel merges neighbouring mappings into one); 0 if the mapping is not made of such chunks.
static uintptr_t mmapped_block(uintptr_t start, uintptr_t end, uintptr_t slot) {
    uintptr_t chunk = start;
    for (int steps = 0; steps < 256 && chunk + 16 <= end; steps++) {
        uint64_t header = 0;
        if (!lc_copy_memory(chunk + 8, &header, 8)) return 0;
        uint64_t size = header & ~(uint64_t)7;
        if (!(header & 2) || size < 4096 || size % 4096 != 0 || chunk + size > end) return 0;
        if (slot < chunk + size) return slot >= chunk + 16 ? chunk + 16 : 0;
        chunk += size;
    }
    return 0;
}

long lc_scan_writable_memory(const uintptr_t *targets, size_t count, uintptr_t *slots, uintptr_t *values,
                             uintptr_t *blocks, size_t max_hits, uint64_t budget_ns, uint64_t *scanned_bytes) {
    if (count == 0) return 0;
    uint64_t deadline_ns = budget_ns ? now_ns() + budget_ns : 0;
    if (count > SCAN_MAX_TARGETS) count = SCAN_MAX_TARGETS;
    if (max_hits > SCAN_MAX_HITS) max_hits = SCAN_MAX_HITS;
    struct scan_state *state = mmap(0, sizeof(struct scan_state), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (state == MAP_FAILED) return -1;
    uintptr_t own_start = (uintptr_t)state, own_end = own_start + sizeof(struct scan_state);
    memcpy(state->targets, targets, count * sizeof(uintptr_t));
    qsort(state->targets, count, sizeof(uintptr_t), sort_words);
    uintptr_t lowest = state->targets[0], highest = state->targets[count - 1];
    FILE *maps = fopen("/proc/self/maps", "r");
    if (!maps) { munmap(state, sizeof(struct scan_state)); return -1; }
    long hits = 0;
    int timed_out = 0;
    uint64_t scanned = 0;
    char line[512];
    long page = sysconf(_SC_PAGESIZE);
    while (!timed_out && fgets(line, sizeof line, maps)) {
        unsigned long start = 0, end = 0;
        char perms[8] = {0};
        if (sscanf(line, "%lx-%lx %7s", &start, &end, perms) != 3) continue;
        if (perms[0] != 'r' || perms[1] != 'w' || perms[3] != 'p') continue;
        if (strstr(line, "[stack]") || strstr(line, "[vvar") || strstr(line, "[vsyscall]")) continue;
        if (start == own_start) continue;
        for (uintptr_t piece = start; piece < end && !timed_out; piece += SCAN_CHUNK) {
            size_t length = end - piece < SCAN_CHUNK ? end - piece : SCAN_CHUNK;
            if (piece < own_end && piece + length > own_start) continue;
            // Pages never touched hold only zeros: skip them without faulting them in.
            size_t pages = (length + page - 1) / page;
            if (mincore((void *)piece, length, state->residency) != 0) continue;
            size_t first = 0;
            while (first < pages) {
                while (first < pages && !(state->residency[first] & 1)) first++;
                size_t last = first;
                while (last < pages && (state->residency[last] & 1)) last++;
                if (first == last) break;
                uintptr_t run = piece + first * page;
                size_t run_length = (last - first) * page;
                if (run + run_length > piece + length) run_length = piece + length - run;
                struct iovec local = { state->words, run_length };
                struct iovec remote = { (void *)run, run_length };
                if (process_vm_readv(getpid(), &local, 1, &remote, 1, 0) == (ssize_t)run_length) {
                    scanned += run_length;
                    size_t words = run_length / sizeof(uintptr_t);
                    for (size_t index = next_in_range(state->words, 0, words, lowest, highest); index < words;
                         index = next_in_range(state->words, index + 1, words, lowest, highest)) {
                        long before = hits;
                        hits = note_hit(state, run, index, count, lowest, highest, max_hits, hits);
                        if (hits > before && (size_t)before < max_hits) {
                            state->hit_blocks[before] = mmapped_block(start, end, state->hit_slots[before]);
                        }
                    }
                }
                first = last;
            }
            if (deadline_ns && now_ns() > deadline_ns) timed_out = 1;
        }
    }
    fclose(maps);
    size_t kept = (size_t)hits < max_hits ? (size_t)hits : max_hits;
    memcpy(slots, state->hit_slots, kept * sizeof(uintptr_t));
    memcpy(values, state->hit_values, kept * sizeof(uintptr_t));
    memcpy(blocks, state->hit_blocks, kept * sizeof(uintptr_t));
    munmap(state, sizeof(struct scan_state));
    if (scanned_bytes) *scanned_bytes = scanned;
    return timed_out ? -2 - hits : hits;
}

uintptr_t lc_block_start(uintptr_t slot, size_t max_distance) {
    // One page of headers at a time, copied from the page that holds them.
    uintptr_t window[(4096 + 32) / sizeof(uintptr_t)];
    uintptr_t candidate = slot & ~(uintptr_t)15;
    uintptr_t floor = slot > max_distance + 4096 ? slot - max_distance : 4096;
    while (candidate >= floor) {
        uintptr_t window_start = (candidate - 8) & ~(uintptr_t)4095;
        if (!lc_copy_memory(window_start, window, candidate + 16 - window_start)) return 0;
        for (; candidate >= floor && candidate - 8 >= window_start; candidate -= 16) {
            uint64_t header = window[(candidate - 8 - window_start) / sizeof(uintptr_t)];
            uint64_t size = header & ~(uint64_t)7;
            // In use, a chunk also owns the first word of the next one (its prev_size).
            if (size < 32 || size > ((uint64_t)1 << 32) || candidate - 8 + size <= slot) continue;
            if (lc_block_size(candidate) > 0) return candidate;
        }
    }
    return 0;
}

const char *lc_image_path(uintptr_t address, uintptr_t *base) {
    Dl_info info;
    if (dladdr((void *)address, &info) == 0 || info.dli_fbase == 0) return 0;
    *base = (uintptr_t)info.dli_fbase;
    return info.dli_fname ? info.dli_fname : "";
}

int lc_in_image(uintptr_t address) {
    Dl_info info;
    return dladdr((void *)address, &info) != 0 && info.dli_fbase != 0;
}

const void *lc_symbol_address(const char *name) {
    return dlsym(RTLD_DEFAULT, name);
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

const char *lc_image_path(uintptr_t address, uintptr_t *base) {
    (void)address; (void)base;
    return 0;
}

long lc_scan_writable_memory(const uintptr_t *targets, size_t count, uintptr_t *slots, uintptr_t *values,
                             uintptr_t *blocks, size_t max_hits, uint64_t budget_ns, uint64_t *scanned_bytes) {
    (void)targets; (void)count; (void)slots; (void)values; (void)blocks; (void)max_hits; (void)budget_ns; (void)scanned_bytes;
    return -1;
}

uintptr_t lc_block_start(uintptr_t slot, size_t max_distance) {
    (void)slot; (void)max_distance;
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

const void *lc_symbol_address(const char *name) {
    (void)name;
    return 0;
}

#endif
