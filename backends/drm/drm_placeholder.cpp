// Replaced by the drm backend.
