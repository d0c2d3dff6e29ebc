//! Major/minor format versions and the one compatibility policy every format uses.
//!
//! The policy: a major version change breaks readers, a minor version change does not.
//! So a newer major is rejected, an older major than the format still reads is rejected,
//! and a newer minor is accepted *and reported*, so that a tool can say "this file was
//! written by a newer writer; fields it added are ignored". Each format configures the
//! policy with its own numbers in a [`VersionPolicy`] constant.

use core::fmt;

use crate::error::{Error, Layout, Result};

/// A format version: `major.minor`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub struct Version {
    /// Incompatible changes.
    pub major: u16,
    /// Compatible additions.
    pub minor: u16,
}

impl Version {
    /// `major.minor`.
    #[must_use]
    pub const fn new(major: u16, minor: u16) -> Self {
        Version { major, minor }
    }
}

impl fmt::Display for Version {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}", self.major, self.minor)
    }
}

/// How a version that passed [`VersionPolicy::check`] relates to what we write.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Compatibility {
    /// Exactly the version this library writes.
    Current,
    /// An older version this library still reads.
    Older,
    /// Same major, newer minor: readable, but it may hold additions this library ignores.
    NewerMinor {
        /// The newest minor version this library knows.
        known_minor: u16,
    },
}

impl Compatibility {
    /// True when the file may contain additions that this library skips.
    #[must_use]
    pub const fn is_newer(&self) -> bool {
        matches!(self, Compatibility::NewerMinor { .. })
    }
}

/// Which versions a format reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct VersionPolicy {
    /// The format, for messages (`"kastore file"`).
    pub what: &'static str,
    /// The version this library writes; its major is the newest major it reads.
    pub current: Version,
    /// The oldest major version it reads.
    pub oldest_major: u16,
}

impl VersionPolicy {
    /// A policy that reads exactly one major version and writes `current`.
    #[must_use]
    pub const fn single_major(what: &'static str, current: Version) -> Self {
        VersionPolicy {
            what,
            current,
            oldest_major: current.major,
        }
    }

    /// Applies the policy to `found`, read at `offset`.
    ///
    /// # Errors
    /// [`Layout::VersionTooNew`] for a newer major, [`Layout::VersionTooOld`] for a major
    /// below `oldest_major`.
    ///
    /// ```
    /// use binfmt_core::version::{Compatibility, Version, VersionPolicy};
    /// const POLICY: VersionPolicy = VersionPolicy::single_major("example", Version::new(1, 0));
    /// assert_eq!(POLICY.check(Version::new(1, 0), 8), Ok(Compatibility::Current));
    /// assert_eq!(
    ///     POLICY.check(Version::new(1, 7), 8),
    ///     Ok(Compatibility::NewerMinor { known_minor: 0 })
    /// );
    /// assert!(POLICY.check(Version::new(2, 0), 8).is_err());
    /// assert!(POLICY.check(Version::new(0, 9), 8).is_err());
    /// ```
    pub fn check(&self, found: Version, offset: u64) -> Result<Compatibility> {
        let current = self.current;
        if found.major > current.major {
            Err(Error::new(
                Some(offset),
                Layout::VersionTooNew {
                    what: self.what,
                    found,
                    supported_major: current.major,
                },
            ))
        } else if found.major < self.oldest_major {
            Err(Error::new(
                Some(offset),
                Layout::VersionTooOld {
                    what: self.what,
                    found,
                    oldest_major: self.oldest_major,
                },
            ))
        } else if found.major < current.major || found.minor < current.minor {
            Ok(Compatibility::Older)
        } else if found.minor > current.minor {
            Ok(Compatibility::NewerMinor {
                known_minor: current.minor,
            })
        } else {
            Ok(Compatibility::Current)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    const POLICY: VersionPolicy = VersionPolicy {
        what: "test",
        current: Version::new(3, 2),
        oldest_major: 2,
    };

    #[test]
    fn policy() {
        assert_eq!(
            POLICY.check(Version::new(3, 2), 0),
            Ok(Compatibility::Current)
        );
        assert_eq!(
            POLICY.check(Version::new(3, 1), 0),
            Ok(Compatibility::Older)
        );
        assert_eq!(
            POLICY.check(Version::new(2, 9), 0),
            Ok(Compatibility::Older)
        );
        assert_eq!(
            POLICY.check(Version::new(3, 65535), 0),
            Ok(Compatibility::NewerMinor { known_minor: 2 })
        );
        let e = POLICY.check(Version::new(4, 0), 4).unwrap_err();
        assert_eq!(e.offset(), Some(4));
        assert!(matches!(
            e.kind(),
            Layout::VersionTooNew {
                supported_major: 3,
                ..
            }
        ));
        assert!(matches!(
            POLICY
                .check(Version::new(1, 0), 4)
                .map_err(|e| e.into_kind()),
            Err(Layout::VersionTooOld {
                oldest_major: 2,
                ..
            })
        ));
    }

    #[test]
    fn display() {
        assert_eq!(Version::new(1, 0).to_string(), "1.0");
    }
}
