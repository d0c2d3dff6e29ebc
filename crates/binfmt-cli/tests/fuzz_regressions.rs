//! Inputs the fuzz targets of the command's own code paths found, run through the same
//! entry points on every test run (`fuzz/regressions/<target>/`).
//!
//! `cli_ranged/leak-*`: a Bloscpack file on which LeakSanitizer reported 112 bytes of a
//! worker thread's channel context at exit, with the two-thread unpack pipeline as it was
//! then; the pipeline has since been rewritten (scoped threads, always joined) and 332,541
//! runs of the target found nothing. Here it must run to the end without a panic, on
//! every path the fuzz entry points drive.

use std::path::Path;

#[test]
fn every_cli_regression_input_runs_through_its_target() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/regressions");
    let mut ran = 0;
    for (target, run) in [("cli_ranged", binfmt_cli::fuzzing::ranged as fn(&[u8]))] {
        let Ok(entries) = std::fs::read_dir(root.join(target)) else {
            continue;
        };
        for entry in entries.flatten() {
            let bytes = std::fs::read(entry.path()).unwrap_or_default();
            run(&bytes);
            binfmt_cli::fuzzing::inspect(&bytes);
            binfmt_cli::fuzzing::verify(&bytes);
            binfmt_cli::fuzzing::commands(&bytes);
            ran += 1;
        }
    }
    assert!(
        ran > 0,
        "no regression inputs found under {}",
        root.display()
    );
}
