// Replaced by the vulkan backend.
