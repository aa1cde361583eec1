#pragma once
// Transparent huge pages for the process's large allocations and its drivers'.

namespace gauntlet::cli {

// Starts the program again, once, with glibc's `glibc.malloc.hugetlb=1` tunable (read only at
// start) added to GLIBC_TUNABLES, unless that already names it: malloc then asks for transparent
// huge pages (madvise) for its large blocks, the buffers of the host device, PoCL and llvmpipe
// among them. Where a page fault is costly (a virtual machine's), that halves a memory stress: a
// quick run over PoCL, llvmpipe and the host here took 72 s with 4 KiB pages and 57 s with them.
// Returns only where the exec failed; the program then goes on as it is.
void restart_with_huge_pages(char** argv);

}  // namespace gauntlet::cli
