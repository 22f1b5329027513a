package rlock

// Version is the library's semantic version, kept in step with
// CHANGELOG.md.
const Version = "0.2.0"
