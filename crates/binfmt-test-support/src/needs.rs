//! Tests that need something from outside the crate: the Python with the reference
//! implementations, nginx, moto's S3 server.
//!
//! Each such test is a `#[test]` ignored, with the reason, where the crate's build script
//! (tools/test_skips.rs) set `binfmt_no_python`, `binfmt_no_nginx` or `binfmt_no_moto`,
//! and that still skips at run time (a test binary run by hand with other variables than
//! it was built with) when its setup returns `None`. The macros write that preamble once:
//! the cfgs are read where a macro is expanded, so in the calling crate, whose build
//! script set them.

/// A `#[test]` that needs the reference implementations, given the interpreter
/// ([`reference::python`](crate::reference::python)) as the named argument.
///
/// ```ignore
/// binfmt_test_support::reference_test! {
///     fn the_reference_reads_it(py) {
///         reference::run(&py, "kastore/check_read.py", &[path.as_os_str()]);
///     }
/// }
/// ```
#[macro_export]
macro_rules! reference_test {
    ($(#[$meta:meta])* fn $name:ident($py:ident) $body:block) => {
        $(#[$meta])*
        #[test]
        #[cfg_attr(
            binfmt_no_python,
            ignore = "BINFMT_PYTHON is not set: run bash .ci/run, or see README"
        )]
        fn $name() {
            let Some($py) = $crate::reference::python(stringify!($name)) else {
                return;
            };
            $body
        }
    };
}

/// A `#[test]` that needs a test server: `nginx` or `moto`, started by
/// `setup(test name) -> Option<_>` and given to the body under the name before `=`.
///
/// ```ignore
/// binfmt_test_support::server_test! {
///     nginx fn len_alone_is_one_head(site = site) {
///         assert_eq!(open(&site, "small.bin").len().unwrap(), SMALL);
///     }
/// }
/// ```
#[macro_export]
macro_rules! server_test {
    ($(#[$meta:meta])* nginx fn $name:ident($server:ident = $setup:expr) $body:block) => {
        $crate::server_test! {
            @ binfmt_no_nginx,
            "nginx was not found: set BINFMT_NGINX, or run tools/remote/install-servers.sh",
            $(#[$meta])* fn $name($server = $setup) $body
        }
    };
    ($(#[$meta:meta])* moto fn $name:ident($server:ident = $setup:expr) $body:block) => {
        $crate::server_test! {
            @ binfmt_no_moto,
            "moto_server was not found: set BINFMT_MOTO_SERVER, or run tools/remote/install-servers.sh",
            $(#[$meta])* fn $name($server = $setup) $body
        }
    };
    (@ $missing:ident, $why:literal,
        $(#[$meta:meta])* fn $name:ident($server:ident = $setup:expr) $body:block) => {
        $(#[$meta])*
        #[test]
        #[cfg_attr($missing, ignore = $why)]
        fn $name() {
            let Some($server) = $setup(stringify!($name)) else {
                return;
            };
            $body
        }
    };
}
