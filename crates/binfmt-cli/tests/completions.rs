//! `binfmt completions SHELL` and `binfmt man [COMMAND]…` are generated from the grammar:
//! every command that `--help` lists is in them, and they follow the exit-code and
//! standard-output rules of every other command.
#![allow(clippy::unwrap_used)]

use std::process::{Command, Output};

fn binfmt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_binfmt"))
        .args(args)
        .output()
        .unwrap()
}

fn stdout(args: &[&str]) -> String {
    let out = binfmt(args);
    assert_eq!(
        out.status.code(),
        Some(0),
        "binfmt {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.stderr.is_empty(), "binfmt {args:?} wrote to stderr");
    String::from_utf8(out.stdout).unwrap()
}

/// The commands that `binfmt ARGS --help` lists (its "Commands:" section), `help` aside.
fn commands(args: &[&str]) -> Vec<String> {
    let mut args = args.to_vec();
    args.push("--help");
    let help = stdout(&args);
    help.lines()
        .skip_while(|l| *l != "Commands:")
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_owned)
        .collect()
}

/// Every command and, for those that have them, their subcommands.
fn tree() -> Vec<(String, Vec<String>)> {
    let top = commands(&[]);
    for expected in ["inspect", "verify", "taco", "taridx", "completions", "man"] {
        assert!(top.iter().any(|c| c == expected), "{expected} in {top:?}");
    }
    top.into_iter()
        .map(|c| {
            let subs = if c == "completions" || c == "man" {
                Vec::new()
            } else {
                commands(&[&c])
            };
            (c, subs)
        })
        .collect()
}

#[test]
fn the_bash_completion_names_every_command_and_subcommand() {
    let script = stdout(&["completions", "bash"]);
    assert!(script.contains("complete -F _binfmt"), "{script}");
    let tree = tree();
    assert!(tree.iter().any(|(_, subs)| !subs.is_empty()));
    for (command, subs) in &tree {
        assert!(script.contains(command.as_str()), "{command}");
        for sub in subs {
            // clap_complete's name for the state after `binfmt COMMAND SUBCOMMAND`.
            let state = format!("binfmt__subcmd__{command}__subcmd__{sub}");
            assert!(script.contains(&state), "{command} {sub}: no {state}");
        }
    }
}

#[test]
fn every_shell_gets_a_script() {
    for shell in ["bash", "zsh", "fish", "elvish", "powershell"] {
        let script = stdout(&["completions", shell]);
        assert!(
            script.contains("verify") && script.contains("taridx"),
            "{shell}"
        );
    }
}

/// `name` as roff writes it (a hyphen is `\-`).
fn roff(name: &str) -> String {
    name.replace('-', "\\-")
}

#[test]
fn the_man_pages_name_every_command_and_subcommand() {
    let page = stdout(&["man"]);
    assert!(page.contains(".TH binfmt 1"), "{page}");
    for (command, subs) in tree() {
        assert!(page.contains(&roff(&command)), "binfmt(1) lacks {command}");
        let own = stdout(&["man", &command]);
        assert!(
            own.contains(&format!(".TH binfmt-{command} 1")),
            "{command}: {own}"
        );
        for sub in subs {
            assert!(own.contains(&roff(&sub)), "binfmt-{command}(1) lacks {sub}");
            let leaf = stdout(&["man", &command, &sub]);
            assert!(
                leaf.contains(&format!(".TH binfmt-{command}-{sub} 1")),
                "{command} {sub}: {leaf}"
            );
        }
    }
}

#[test]
fn unknown_shells_and_commands_are_usage_errors() {
    for args in [
        &["completions", "tcsh"][..],
        &["completions"],
        &["man", "no-such-command"],
        &["man", "taco", "no-such-command"],
    ] {
        let out = binfmt(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        assert!(out.stdout.is_empty(), "{args:?}");
        assert!(!out.stderr.is_empty(), "{args:?}");
    }
    let err = String::from_utf8(binfmt(&["man", "taco", "nope"]).stderr).unwrap();
    assert!(err.contains("no command `binfmt taco nope`"), "{err}");
}

#[test]
fn the_help_documents_both() {
    let help = stdout(&["--help"]);
    assert!(
        help.contains("completions") && help.contains("man"),
        "{help}"
    );
    assert!(stdout(&["completions", "--help"]).contains("bash"));
    assert!(stdout(&["man", "--help"]).contains("roff"));
}

#[cfg(unix)]
#[test]
fn a_reader_that_stops_early_ends_them_quietly() {
    for command in ["completions bash", "man"] {
        // pipefail: the status is binfmt's, not head's.
        let out = Command::new("bash")
            .arg("-c")
            .arg(format!(
                "set -o pipefail; \"$BINFMT\" {command} | head -c 1 >/dev/null"
            ))
            .env("BINFMT", env!("CARGO_BIN_EXE_binfmt"))
            .output()
            .unwrap();
        assert!(out.status.success(), "{command}");
        assert!(
            out.stderr.is_empty(),
            "{command}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
