package rlock

// Version is the library's semantic version, kept in step with
// CHANGELOG.md: "X.Y.Z" for a release, and between releases the next one
// with "-dev" ("0.3.0-dev": what CHANGELOG.md lists under [Unreleased] is
// in it, and X.Y.Z is not released yet).
const Version = "0.3.0-dev"
