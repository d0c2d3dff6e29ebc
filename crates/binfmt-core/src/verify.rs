//! The one verification contract of every format crate.
//!
//! `parse` stops at the first problem. Each format crate's free function `verify` checks
//! the whole input against the same rules and reports *every* problem to a [`Sink`],
//! with one signature in all five crates:
//!
//! ```text
//! pub fn verify(data: &[u8], options: &ReadOptions, sink: &mut dyn Sink<Error>) -> Summary
//! ```
//!
//! A finding is an [`Error`](crate::Error) of the crate, at a [`Severity`]: an error makes
//! the input invalid; a warning names something a reader should know (bytes after the
//! end, a shortfall a reference implementation would hide) without making the input
//! invalid. The sink decides what to keep and may stop the walk early by returning
//! [`ControlFlow::Break`]. Verification never stores findings itself, so its memory does
//! not grow with the number of problems; [`Findings`] (with `alloc`) keeps the first few
//! and counts the rest.
//!
//! ```
//! use core::ops::ControlFlow;
//! use binfmt_core::verify::{Severity, Sink, Summary, Tally};
//!
//! // A toy format: every byte must be even; a trailing zero byte earns a warning.
//! fn verify(data: &[u8], sink: &mut dyn Sink<(usize, u8)>) -> Summary {
//!     let mut tally = Tally::new(sink);
//!     for (i, &b) in data.iter().enumerate() {
//!         if b % 2 == 1 && tally.error((i, b)).is_break() {
//!             return tally.finish();
//!         }
//!     }
//!     if data.last() == Some(&0) {
//!         let _ = tally.warning((data.len() - 1, 0));
//!     }
//!     tally.finish()
//! }
//!
//! let mut odd = Vec::new();
//! let summary = verify(&[1, 2, 3, 0], &mut |severity: Severity, found: (usize, u8)| {
//!     if severity == Severity::Error {
//!         odd.push(found.0);
//!     }
//!     ControlFlow::Continue(())
//! });
//! assert_eq!(odd, [0, 2]);
//! assert_eq!((summary.errors(), summary.warnings()), (2, 1));
//! assert!(!summary.is_valid());
//! ```

use core::ops::ControlFlow;

/// How bad a finding is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Severity {
    /// Worth knowing; the input is still valid.
    Warning,
    /// The input breaks a rule of its format.
    Error,
}

impl core::fmt::Display for Severity {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.write_str(match self {
            Severity::Warning => "warning",
            Severity::Error => "error",
        })
    }
}

/// Where `verify` sends what it finds.
///
/// Implemented for every `FnMut(Severity, E) -> ControlFlow<()>` closure and, with
/// `alloc`, by [`Findings`].
pub trait Sink<E> {
    /// Takes one finding. `Break` stops the verification (the summary then says it is
    /// incomplete).
    fn report(&mut self, severity: Severity, finding: E) -> ControlFlow<()>;
}

impl<E, F: FnMut(Severity, E) -> ControlFlow<()>> Sink<E> for F {
    fn report(&mut self, severity: Severity, finding: E) -> ControlFlow<()> {
        self(severity, finding)
    }
}

/// What a verification found, in counts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Summary {
    errors: u64,
    warnings: u64,
    stopped: bool,
}

impl Summary {
    /// Errors reported.
    #[must_use]
    pub const fn errors(&self) -> u64 {
        self.errors
    }

    /// Warnings reported.
    #[must_use]
    pub const fn warnings(&self) -> u64 {
        self.warnings
    }

    /// True when the sink stopped the walk before the end, so later problems may exist.
    #[must_use]
    pub const fn stopped(&self) -> bool {
        self.stopped
    }

    /// True when no error was reported and the walk reached the end.
    #[must_use]
    pub const fn is_valid(&self) -> bool {
        self.errors == 0 && !self.stopped
    }
}

/// A sink wrapped with the counts a [`Summary`] needs: what every `verify` uses inside.
#[derive(Debug)]
pub struct Tally<'s, S: ?Sized> {
    sink: &'s mut S,
    summary: Summary,
}

impl<'s, S: ?Sized> Tally<'s, S> {
    /// Counts what goes to `sink`.
    pub fn new(sink: &'s mut S) -> Self {
        Tally {
            sink,
            summary: Summary::default(),
        }
    }

    /// Reports `finding` at `severity`. After the sink has said `Break` once, every later
    /// call returns `Break` without reaching it.
    pub fn report<E>(&mut self, severity: Severity, finding: E) -> ControlFlow<()>
    where
        S: Sink<E>,
    {
        if self.summary.stopped {
            return ControlFlow::Break(());
        }
        match severity {
            Severity::Error => self.summary.errors = self.summary.errors.saturating_add(1),
            Severity::Warning => self.summary.warnings = self.summary.warnings.saturating_add(1),
        }
        let flow = self.sink.report(severity, finding);
        if flow.is_break() {
            self.summary.stopped = true;
        }
        flow
    }

    /// Reports an error.
    pub fn error<E>(&mut self, finding: E) -> ControlFlow<()>
    where
        S: Sink<E>,
    {
        self.report(Severity::Error, finding)
    }

    /// Reports a warning.
    pub fn warning<E>(&mut self, finding: E) -> ControlFlow<()>
    where
        S: Sink<E>,
    {
        self.report(Severity::Warning, finding)
    }

    /// Reports the error of `result`, if any, and gives back its value.
    pub fn check<T, E>(&mut self, result: Result<T, E>) -> Option<T>
    where
        S: Sink<E>,
    {
        match result {
            Ok(value) => Some(value),
            Err(e) => {
                let _ = self.error(e);
                None
            }
        }
    }

    /// True once the sink has stopped the walk.
    #[must_use]
    pub fn is_stopped(&self) -> bool {
        self.summary.stopped
    }

    /// Errors reported so far.
    #[must_use]
    pub fn errors(&self) -> u64 {
        self.summary.errors
    }

    /// The counts.
    #[must_use]
    pub fn finish(self) -> Summary {
        self.summary
    }
}

/// Declares a format crate's two verification functions, with the one signature of the
/// contract (see [`verify`](crate::verify)) and each with the docs written before it:
///
/// ```text
/// pub fn verify(data: &[u8], options: &ReadOptions, sink: &mut dyn Sink<Error>) -> Summary
///
/// pub fn verify_data<'d, D: Data<'d>>(
///     data: D,
///     options: &ReadOptions,
///     sink: &mut dyn Sink<Error>,
/// ) -> Summary
/// where
///     Error: From<D::Error>,
/// ```
///
/// `verify` is `verify_data` over the slice; `verify_data` wraps the sink in a [`Tally`],
/// passes it to the crate's walk and returns the tally's [`Summary`]: the two bodies every
/// format crate would otherwise write alike.
///
/// `Error` and `ReadOptions` are the calling crate's. A walk is a function
/// `(data, options: &ReadOptions, tally: &mut Tally<'_, dyn Sink<Error> + '_>)` that
/// reports to the tally; what it returns (a `ControlFlow` saying whether the sink stopped
/// it, or nothing) is dropped, as the tally records that. `=> walk` hands it the `Data`
/// itself; `=> walk, walk_ranged` hands the first the whole input as a slice when the data
/// has one ([`Data::whole`](crate::data::Data::whole)) and the second the `Data` otherwise.
///
/// ```
/// use core::ops::ControlFlow;
/// use binfmt_core::data::Data;
/// use binfmt_core::Error;
/// use binfmt_core::verify::{Severity, Sink, Tally};
///
/// /// A toy format's options: the byte every byte must differ from.
/// pub struct ReadOptions(u8);
///
/// fn walk(data: &[u8], options: &ReadOptions, tally: &mut Tally<'_, dyn Sink<Error> + '_>) -> ControlFlow<()> {
///     for (at, _) in data.iter().enumerate().filter(|&(_, &b)| b == options.0) {
///         tally.error(Error::overflow("byte", at as u64))?;
///     }
///     ControlFlow::Continue(())
/// }
///
/// fn walk_ranged<'d, D: Data<'d>>(data: D, options: &ReadOptions, tally: &mut Tally<'_, dyn Sink<Error> + '_>) -> ControlFlow<()>
/// where
///     Error: From<D::Error>,
/// {
///     match data.head(u64::MAX) {
///         Ok(head) => walk(head, options, tally),
///         Err(e) => tally.error(e.into()),
///     }
/// }
///
/// binfmt_core::verify_fns! {
///     /// Reports every byte equal to the options' one.
///     pub fn verify;
///     /// [`verify`] over any [`Data`].
///     pub fn verify_data => walk, walk_ranged;
/// }
///
/// let mut last = None;
/// let summary = verify(&[1, 0, 1], &ReadOptions(1), &mut |_: Severity, e: Error| {
///     last = e.offset();
///     ControlFlow::Continue(())
/// });
/// assert_eq!((summary.errors(), last), (2, Some(2)));
/// ```
#[macro_export]
macro_rules! verify_fns {
    (
        $(#[$verify:meta])*
        pub fn verify;
        $(#[$verify_data:meta])*
        pub fn verify_data => $($walk:tt)+
    ) => {
        $(#[$verify])*
        pub fn verify(
            data: &[u8],
            options: &ReadOptions,
            sink: &mut dyn $crate::verify::Sink<Error>,
        ) -> $crate::verify::Summary {
            verify_data(data, options, sink)
        }

        $(#[$verify_data])*
        pub fn verify_data<'d, D: $crate::data::Data<'d>>(
            data: D,
            options: &ReadOptions,
            sink: &mut dyn $crate::verify::Sink<Error>,
        ) -> $crate::verify::Summary
        where
            Error: ::core::convert::From<D::Error>,
        {
            let mut tally = $crate::verify::Tally::new(sink);
            // A `Break` means the sink stopped the walk; the summary records it.
            let _ = $crate::verify_fns!(@walk data, options, &mut tally, $($walk)+);
            tally.finish()
        }
    };
    // `=> whole, ranged`: the slice when the data is one, else the data.
    (@walk $data:ident, $options:ident, $tally:expr, $whole:path, $ranged:path $(;)?) => {
        match $data.whole() {
            ::core::option::Option::Some(all) => $whole(all, $options, $tally),
            ::core::option::Option::None => $ranged($data, $options, $tally),
        }
    };
    // `=> walk`: the data.
    (@walk $data:ident, $options:ident, $tally:expr, $walk:path $(;)?) => {
        $walk($data, $options, $tally)
    };
}

#[cfg(feature = "alloc")]
pub use findings::Findings;

#[cfg(feature = "alloc")]
mod findings {
    use alloc::vec::Vec;
    use core::ops::ControlFlow;

    use super::{Severity, Sink};

    /// A sink that keeps the first `cap` findings of each severity, in order, and counts
    /// the rest: memory bounded by `cap` whatever the input.
    ///
    /// ```
    /// use binfmt_core::verify::{Findings, Severity, Sink};
    /// let mut findings = Findings::new(2);
    /// for i in 0..5 {
    ///     let _ = findings.report(Severity::Error, i);
    /// }
    /// assert_eq!(findings.errors(), &[0, 1]);
    /// assert_eq!(findings.more_errors(), 3);
    /// ```
    #[derive(Debug, Clone)]
    pub struct Findings<E> {
        cap: usize,
        errors: Vec<E>,
        warnings: Vec<E>,
        more_errors: u64,
        more_warnings: u64,
    }

    impl<E> Findings<E> {
        /// Keeps at most `cap` errors and `cap` warnings.
        #[must_use]
        pub fn new(cap: usize) -> Self {
            Findings {
                cap,
                errors: Vec::new(),
                warnings: Vec::new(),
                more_errors: 0,
                more_warnings: 0,
            }
        }

        /// The errors kept, in the order found.
        #[must_use]
        pub fn errors(&self) -> &[E] {
            &self.errors
        }

        /// The warnings kept, in the order found.
        #[must_use]
        pub fn warnings(&self) -> &[E] {
            &self.warnings
        }

        /// Errors found past the cap.
        #[must_use]
        pub fn more_errors(&self) -> u64 {
            self.more_errors
        }

        /// Warnings found past the cap.
        #[must_use]
        pub fn more_warnings(&self) -> u64 {
            self.more_warnings
        }

        /// The kept errors and warnings, each list in the order found.
        #[must_use]
        pub fn into_parts(self) -> (Vec<E>, Vec<E>) {
            (self.errors, self.warnings)
        }
    }

    impl<E> Sink<E> for Findings<E> {
        fn report(&mut self, severity: Severity, finding: E) -> ControlFlow<()> {
            let (kept, more) = match severity {
                Severity::Error => (&mut self.errors, &mut self.more_errors),
                Severity::Warning => (&mut self.warnings, &mut self.more_warnings),
            };
            if kept.len() < self.cap {
                kept.push(finding);
            } else {
                *more = more.saturating_add(1);
            }
            ControlFlow::Continue(())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tally_counts_and_stops() {
        let mut seen = 0;
        let mut sink = |_: Severity, _: u8| {
            seen += 1;
            if seen == 2 {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            }
        };
        let mut tally = Tally::new(&mut sink);
        assert!(tally.warning(1).is_continue());
        assert!(tally.error(2).is_break());
        assert!(tally.error(3).is_break());
        let summary = tally.finish();
        assert_eq!((summary.errors(), summary.warnings()), (1, 1));
        assert!(summary.stopped());
        assert!(!summary.is_valid());
        assert_eq!(seen, 2);
    }

    #[test]
    fn warnings_alone_keep_the_input_valid() {
        let mut sink = |_: Severity, _: u8| ControlFlow::Continue(());
        let mut tally = Tally::new(&mut sink);
        let _ = tally.warning(0);
        assert!(tally.finish().is_valid());
    }
}
