// Replaced by the opencl backend.
