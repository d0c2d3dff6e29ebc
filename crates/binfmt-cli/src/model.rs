//! The one inspect model: a file's facts, written once by its format and rendered both as
//! JSON (`inspect --json`) and as text.
//!
//! A format builds [`Facts`], an ordered list of facts, each under its JSON key: a value,
//! a group (a nested object), or a table (an array of objects). The JSON rendering is the
//! command-line contract (keys documented in `--help` through [`Key`], checked against the
//! output by a test); the text rendering is derived from the same facts: `key: value`
//! lines, groups indented, tables with aligned columns. Everything from the file is cut
//! to a bounded width and, for a terminal, escaped (to a pipe or a file, names and text
//! go byte for byte, as `ls` writes them), and no width is ever passed to a formatting
//! macro, so no key, name or value can panic the renderer or blow up its output.

use std::io::{self, Write};

use serde_json::{Map, Value};

use crate::escape;

/// Characters of a value shown in text before it is cut.
const MAX_VALUE_CHARS: usize = 512;
/// Characters of a table cell shown in text before it is cut.
const MAX_CELL_CHARS: usize = 48;
/// Items of a list of scalars shown in text before the rest is summarised.
const MAX_LIST_ITEMS: usize = 32;

/// The facts about one file (or one part of it), in order.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct Facts {
    items: Vec<(&'static str, Fact)>,
}

/// One fact.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Fact {
    /// A value; `text` replaces the rendering derived from `json` in text output.
    Value { json: Value, text: Option<String> },
    /// A nested object.
    Group(Facts),
    /// An array of objects, a table in text; `total` is how many rows the table has,
    /// of which `rows` are the first (equal unless built for text only).
    Table { rows: Vec<Facts>, total: usize },
    /// An array of strings (a list of names): 16 bytes an item, where a JSON value
    /// costs 32 and more, so that a list as long as the file allows stays in proportion
    /// to the file (an index may declare millions of one-byte extensions).
    Strings(Vec<Box<str>>),
}

impl Facts {
    pub(crate) fn new() -> Self {
        Facts::default()
    }

    /// The facts `fill` adds to an empty list: a table's row in one expression,
    /// `Facts::build(|row| row.value("offset", 0).value("length", 13))`.
    pub(crate) fn build(fill: impl FnOnce(&mut Facts) -> &mut Facts) -> Self {
        let mut facts = Facts::new();
        fill(&mut facts);
        facts
    }

    /// Room for `n` facts: for the rows of a long table, built once each.
    pub(crate) fn with_capacity(n: usize) -> Self {
        Facts {
            items: Vec::with_capacity(n),
        }
    }

    /// A list of strings, rendered in JSON as an array and in text as a list of scalars.
    pub(crate) fn strings(&mut self, key: &'static str, items: Vec<Box<str>>) -> &mut Self {
        self.items.push((key, Fact::Strings(items)));
        self
    }

    /// A value, rendered in text from its JSON.
    pub(crate) fn value(&mut self, key: &'static str, json: impl Into<Value>) -> &mut Self {
        self.items.push((
            key,
            Fact::Value {
                json: json.into(),
                text: None,
            },
        ));
        self
    }

    /// A value with its own text rendering (a CRC in hex, a version as `1.0`).
    pub(crate) fn shown(
        &mut self,
        key: &'static str,
        json: impl Into<Value>,
        text: impl Into<String>,
    ) -> &mut Self {
        self.items.push((
            key,
            Fact::Value {
                json: json.into(),
                text: Some(text.into()),
            },
        ));
        self
    }

    /// A nested object.
    #[cfg_attr(
        not(test),
        expect(
            dead_code,
            reason = "no format nests an object today; the renderings support it"
        )
    )]
    pub(crate) fn group(&mut self, key: &'static str, facts: Facts) -> &mut Self {
        self.items.push((key, Fact::Group(facts)));
        self
    }

    /// An array of objects.
    pub(crate) fn table(&mut self, key: &'static str, rows: Vec<Facts>) -> &mut Self {
        let total = rows.len();
        self.table_head(key, rows, total)
    }

    /// The first `rows` of a table of `total`, for text only (an inspection without
    /// `--json`): text shows them and counts the rest in one line, so that a listing of
    /// 70,000 members is a page of text built from a page of rows. Its JSON would hold
    /// only these rows.
    pub(crate) fn table_head(
        &mut self,
        key: &'static str,
        rows: Vec<Facts>,
        total: usize,
    ) -> &mut Self {
        self.items.push((key, Fact::Table { rows, total }));
        self
    }

    /// The facts in order.
    pub(crate) fn items(&self) -> &[(&'static str, Fact)] {
        &self.items
    }

    /// The JSON object.
    pub(crate) fn to_json(&self) -> Map<String, Value> {
        self.items
            .iter()
            .map(|(key, fact)| ((*key).to_owned(), fact.to_json()))
            .collect()
    }

    /// The JSON object's members, written as `"key":value` pairs separated by commas
    /// (no braces), byte for byte what serializing [`Facts::to_json`] writes between
    /// them, without building the object first: a listing of 70,000 members is written
    /// as it is walked.
    pub(crate) fn write_json_members(&self, out: &mut dyn Write) -> io::Result<()> {
        for (i, (key, fact)) in self.items.iter().enumerate() {
            if i > 0 {
                out.write_all(b",")?;
            }
            serde_json::to_writer(&mut *out, key)?;
            out.write_all(b":")?;
            match fact {
                Fact::Value { json, .. } => serde_json::to_writer(&mut *out, json)?,
                Fact::Group(facts) => {
                    out.write_all(b"{")?;
                    facts.write_json_members(out)?;
                    out.write_all(b"}")?;
                }
                Fact::Table { rows, .. } => {
                    out.write_all(b"[")?;
                    for (j, row) in rows.iter().enumerate() {
                        out.write_all(if j > 0 { b",{" } else { b"{" })?;
                        row.write_json_members(out)?;
                        out.write_all(b"}")?;
                    }
                    out.write_all(b"]")?;
                }
                Fact::Strings(items) => {
                    out.write_all(b"[")?;
                    for (j, item) in items.iter().enumerate() {
                        if j > 0 {
                            out.write_all(b",")?;
                        }
                        serde_json::to_writer(&mut *out, item)?;
                    }
                    out.write_all(b"]")?;
                }
            }
        }
        Ok(())
    }

    /// The text rendering for a terminal, each line indented by `indent` spaces.
    pub(crate) fn write_text(&self, out: &mut dyn Write, indent: usize) -> io::Result<()> {
        self.write_text_as(out, indent, true)
    }

    /// The text rendering, each line indented by `indent` spaces; text from the file
    /// escaped when `escape` (standard output is a terminal), as it is otherwise.
    pub(crate) fn write_text_as(
        &self,
        out: &mut dyn Write,
        indent: usize,
        escape: bool,
    ) -> io::Result<()> {
        let pad = " ".repeat(indent);
        for (key, fact) in &self.items {
            match fact {
                Fact::Value { json, text } => {
                    let shown = match text {
                        Some(t) => show(t, MAX_VALUE_CHARS, escape),
                        None => render(json, escape),
                    };
                    writeln!(out, "{pad}{key}: {shown}")?;
                }
                Fact::Group(facts) => {
                    writeln!(out, "{pad}{key}:")?;
                    facts.write_text_as(out, indent + 2, escape)?;
                }
                // An empty table is an empty list: `none`, as JSON's `[]`.
                Fact::Table { rows: _, total: 0 } => writeln!(out, "{pad}{key}: none")?,
                Fact::Strings(items) => {
                    writeln!(out, "{pad}{key}: {}", render_strings(items, escape))?;
                }
                Fact::Table { rows, total } => {
                    writeln!(out, "{pad}{key}: {total}")?;
                    write_table(out, rows, indent + 2, escape)?;
                    let more = total.saturating_sub(rows.len());
                    if more > 0 {
                        writeln!(out, "{pad}  … and {more} more (--json lists every one)")?;
                    }
                }
            }
        }
        Ok(())
    }
}

impl Fact {
    fn to_json(&self) -> Value {
        match self {
            Fact::Value { json, .. } => json.clone(),
            Fact::Group(facts) => Value::Object(facts.to_json()),
            Fact::Table { rows, .. } => Value::Array(
                rows.iter()
                    .map(|row| Value::Object(row.to_json()))
                    .collect(),
            ),
            Fact::Strings(items) => Value::Array(
                items
                    .iter()
                    .map(|item| Value::String(item.to_string()))
                    .collect(),
            ),
        }
    }
}

/// `text` cut to `max_chars` characters (a cut marked with `…`), escaped when `escape`.
fn show(text: &str, max_chars: usize, escape: bool) -> String {
    if escape {
        escape::text_cut(text, max_chars)
    } else {
        escape::cut(text, max_chars)
    }
}

/// A JSON value as text: strings (escaped when `escape`), lists of scalars joined, the
/// rest as compact JSON; everything cut to a bounded length.
fn render(json: &Value, escape: bool) -> String {
    match json {
        Value::Null => "-".to_owned(),
        Value::Bool(b) => if *b { "yes" } else { "no" }.to_owned(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => show(s, MAX_VALUE_CHARS, escape),
        Value::Array(items) if items.iter().all(is_scalar) => {
            render_list(items, |item| render(item, escape))
        }
        other => show(&other.to_string(), MAX_VALUE_CHARS, escape),
    }
}

/// A list of strings as text, as [`render`] shows a list of scalars.
fn render_strings(items: &[Box<str>], escape: bool) -> String {
    render_list(items, |item| show(item, MAX_VALUE_CHARS, escape))
}

/// A list as text: its first [`MAX_LIST_ITEMS`] items, each as `text` gives it cut to a
/// cell, joined, then how many there are in all when there are more; "none" for none.
fn render_list<T>(items: &[T], text: impl Fn(&T) -> String) -> String {
    let mut shown: Vec<String> = items
        .iter()
        .take(MAX_LIST_ITEMS)
        .map(|item| escape::cut(&text(item), MAX_CELL_CHARS))
        .collect();
    if items.len() > MAX_LIST_ITEMS {
        shown.push(format!("… ({} in all)", items.len()));
    }
    if shown.is_empty() {
        "none".to_owned()
    } else {
        shown.join(", ")
    }
}

fn is_scalar(v: &Value) -> bool {
    !matches!(v, Value::Array(_) | Value::Object(_))
}

/// Rows of facts as an aligned table: the first row's keys are the columns; values are
/// escaped and cut to [`MAX_CELL_CHARS`]; padding is counted in characters by hand.
fn write_table(out: &mut dyn Write, rows: &[Facts], indent: usize, escape: bool) -> io::Result<()> {
    let Some(first) = rows.first() else {
        return Ok(());
    };
    let columns: Vec<&'static str> = first.items.iter().map(|(k, _)| *k).collect();
    let cells: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|col| {
                    let fact = row.items.iter().find(|(k, _)| k == col).map(|(_, f)| f);
                    match fact {
                        Some(Fact::Value { text: Some(t), .. }) => show(t, MAX_CELL_CHARS, escape),
                        Some(Fact::Value { json, text: None }) => {
                            escape::cut(&render(json, escape), MAX_CELL_CHARS)
                        }
                        Some(other) => show(&other.to_json().to_string(), MAX_CELL_CHARS, escape),
                        None => String::new(),
                    }
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = columns.iter().map(|c| c.chars().count()).collect();
    for row in &cells {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let pad = " ".repeat(indent);
    let header: Vec<String> = columns.iter().map(|c| (*c).to_owned()).collect();
    for row in std::iter::once(&header).chain(&cells) {
        let mut line = pad.clone();
        for (i, (cell, width)) in row.iter().zip(&widths).enumerate() {
            line.push_str(cell);
            if i + 1 < row.len() {
                let n = width.saturating_sub(cell.chars().count()) + 2;
                line.extend(std::iter::repeat_n(' ', n));
            }
        }
        writeln!(out, "{}", line.trim_end())?;
    }
    Ok(())
}

/// A documented `--json` key: its name, what it holds, and the keys of the objects it
/// holds (a group, or each row of a table). A key without children is a value whose JSON
/// is opaque to the documentation (a string, a number, a list, free-form metadata).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Key {
    pub(crate) name: &'static str,
    pub(crate) doc: &'static str,
    pub(crate) children: &'static [Key],
}

/// A table of documented keys, written as `inspect --help` shows them: `"name": "doc"`
/// for a key, `"name": "doc" => CHILDREN` for a key whose objects have keys of their own
/// (a nested `keys!` table, or a named one that two keys share). A macro so that a table
/// reads like that help, one entry a key, where rustfmt spreads a constructor call with a
/// long doc over four lines.
macro_rules! keys {
    (@children) => {
        &[]
    };
    (@children $children:expr) => {
        $children
    };
    ($($name:literal: $doc:literal $(=> $children:expr)?),* $(,)?) => {
        &[$($crate::model::Key {
            name: $name,
            doc: $doc,
            children: $crate::model::keys!(@children $($children)?),
        }),*]
    };
}
pub(crate) use keys;

/// The keys of one format, as `inspect --help` prints them.
pub(crate) fn keys_help(format: &str, keys: &[Key]) -> String {
    let mut out = format!("{format}:\n");
    push_keys(&mut out, keys, 2);
    out
}

fn push_keys(out: &mut String, keys: &[Key], indent: usize) {
    for key in keys {
        out.push_str(&" ".repeat(indent));
        out.push_str(key.name);
        out.push_str(": ");
        out.push_str(key.doc);
        out.push('\n');
        push_keys(out, key.children, indent + 4);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn text(facts: &Facts) -> String {
        let mut out = Vec::new();
        facts.write_text(&mut out, 2).unwrap();
        String::from_utf8(out).unwrap()
    }

    #[test]
    fn text_goes_byte_for_byte_when_not_escaped() {
        let mut row = Facts::new();
        row.value("name", "a\tb\nc\x1b");
        let mut facts = Facts::new();
        facts.table("members", vec![row]).value("title", "x\ty");
        let mut out = Vec::new();
        facts.write_text_as(&mut out, 2, false).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(out.contains("a\tb\nc\x1b"), "{out:?}");
        assert!(out.contains("title: x\ty"), "{out:?}");
        assert!(text(&facts).contains("a\\tb\\nc\\e"));
    }

    #[test]
    fn an_empty_table_is_none_as_json_is_empty() {
        let mut facts = Facts::new();
        facts.table("more_stores", Vec::new());
        assert_eq!(text(&facts), "  more_stores: none\n");
        assert_eq!(Value::Object(facts.to_json()), json!({"more_stores": []}));
    }

    #[test]
    fn one_model_two_renderings() {
        let mut entry = Facts::new();
        entry.value("offset", 157).value("length", 13);
        let mut facts = Facts::new();
        facts
            .value("count", 1)
            .shown("crc32", 0x70f3_f97c_u32, "0x70f3f97c")
            .table("entries", vec![entry])
            .value("zip64", false);
        assert_eq!(
            Value::Object(facts.to_json()),
            json!({"count": 1, "crc32": 1_895_037_308, "entries": [{"offset": 157, "length": 13}], "zip64": false})
        );
        assert_eq!(
            text(&facts),
            "  count: 1\n  crc32: 0x70f3f97c\n  entries: 1\n    offset  length\n    157     13\n  zip64: no\n"
        );
    }

    #[test]
    fn streamed_json_is_the_serialized_object() {
        let mut entry = Facts::new();
        entry.value("offset", 157).value("name", "a\"\u{1b}é");
        let mut inner = Facts::new();
        inner.value("x", json!([1, "two", null]));
        let mut facts = Facts::new();
        facts
            .value("count", 1)
            .table("entries", vec![entry.clone(), entry])
            .table("none", Vec::new())
            .group("inner", inner)
            .value("f", 1.5);
        let mut out = b"{".to_vec();
        facts.write_json_members(&mut out).unwrap();
        out.push(b'}');
        assert_eq!(
            String::from_utf8(out).unwrap(),
            Value::Object(facts.to_json()).to_string()
        );
    }

    #[test]
    fn hostile_names_are_escaped_and_cut() {
        let mut row = Facts::new();
        row.value("key", "k".repeat(20_000) + "\x1b[31m");
        let mut facts = Facts::new();
        facts
            .table("items", vec![row])
            .value("name", "\x1b]0;pwned\x07");
        let out = text(&facts);
        assert!(!out.contains('\x1b'));
        assert!(out.len() < 400, "{} bytes", out.len());
        assert!(out.contains("\\e]0;pwned\\u{7}"));
    }

    #[test]
    fn a_table_head_shows_its_rows_and_counts_the_rest() {
        let rows: Vec<Facts> = (0..2)
            .map(|i| {
                let mut row = Facts::new();
                row.value("n", i);
                row
            })
            .collect();
        let mut facts = Facts::new();
        facts.table_head("items", rows, 5);
        assert_eq!(
            text(&facts),
            "  items: 5\n    n\n    0\n    1\n    … and 3 more (--json lists every one)\n"
        );
    }

    #[test]
    fn long_lists_are_summarised() {
        let mut facts = Facts::new();
        facts.value(
            "extensions",
            (0..1000).map(|i| json!(i)).collect::<Vec<_>>(),
        );
        let out = text(&facts);
        assert!(out.ends_with("… (1000 in all)\n"), "{out}");
    }
}
