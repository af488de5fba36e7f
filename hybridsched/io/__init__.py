"""File formats: versioned JSON documents, SWF traces, Braun ETC matrices."""
