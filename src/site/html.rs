//! Small pieces of HTML: escaping and the page frame every page shares.

/// Escape text for HTML, in element content and in quoted attribute values alike. Control
/// characters other than line breaks and tabs are dropped.
pub fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            '\n' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

/// A name made safe for a file or folder of the site: letters, digits, `-`, `_` and `.`
/// kept, anything else `_`, never starting with a dot.
pub fn slug(name: &str) -> String {
    let mut s: String =
        name.chars().map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') { c } else { '_' }).collect();
    if s.is_empty() || s.starts_with('.') {
        s.insert(0, '_');
    }
    s
}

/// A whole page: `root` is the way back to the site's top (`""` or `"../../"`), `title`
/// the page's title (plain text), `crumbs` the links above the heading, `body` the main
/// content (HTML).
pub fn page(root: &str, title: &str, crumbs: &[(String, String)], body: &str) -> String {
    let mut nav = format!("<a href=\"{root}index.html\">All games</a>");
    for (href, text) in crumbs {
        nav.push_str(&format!(" <span aria-hidden=\"true\">›</span> <a href=\"{}\">{}</a>", esc(href), esc(text)));
    }
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{}</title>\n<link rel=\"stylesheet\" href=\"{root}style.css\">\n</head>\n<body>\n\
         <header><nav aria-label=\"Where you are\">{nav}</nav></header>\n<main>\n{body}</main>\n\
         <footer>Made by shadowjudge. Orders are shown once their phase is processed.</footer>\n\
         </body>\n</html>\n",
        esc(title)
    )
}

/// A table with a header row; each cell is HTML already escaped. Wrapped so that a wide
/// table scrolls on a narrow screen instead of widening the page.
pub fn table(caption: Option<&str>, head: &[&str], rows: &[Vec<String>]) -> String {
    table_of("", caption, head, &[], rows)
}

/// [`table`] with a class for the cells of each column (`""` for none): `power` and
/// `order` cells are never broken across lines (the table scrolls instead).
pub fn classed_table(caption: Option<&str>, head: &[&str], classes: &[&str], rows: &[Vec<String>]) -> String {
    table_of("", caption, head, classes, rows)
}

/// [`table`], each row shown as a card of labelled lines on a narrow screen.
pub fn card_table(caption: Option<&str>, head: &[&str], rows: &[Vec<String>]) -> String {
    table_of(" class=\"cards\"", caption, head, &[], rows)
}

fn table_of(class: &str, caption: Option<&str>, head: &[&str], classes: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("<div class=\"scroll\"><table{class}>");
    if let Some(c) = caption {
        // The caption's text in a box of its own, so that it stays as wide as the screen
        // (and in view) when the table is wider and scrolls.
        out.push_str(&format!("<caption><span>{}</span></caption>", esc(c)));
    }
    out.push_str("<thead><tr>");
    for h in head {
        out.push_str(&format!("<th scope=\"col\">{}</th>", esc(h)));
    }
    out.push_str("</tr></thead><tbody>\n");
    for r in rows {
        out.push_str("<tr>");
        for (i, c) in r.iter().enumerate() {
            let label = head.get(i).map(|h| esc(h)).unwrap_or_default();
            match classes.get(i).filter(|k| !k.is_empty()) {
                Some(k) => out.push_str(&format!("<td class=\"{}\" data-label=\"{label}\">{c}</td>", esc(k))),
                None => out.push_str(&format!("<td data-label=\"{label}\">{c}</td>")),
            }
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
    out
}

/// Whether a line of a text report is a row of a table (set in columns, so it must keep
/// its spaces and never wrap): it has a `|`, is a rule of `-`, `+` and `=`, or has a gap
/// of two spaces or more after its first word.
fn columned(line: &str) -> bool {
    let t = line.trim();
    line.contains('|')
        || (t.len() >= 3 && t.chars().all(|c| matches!(c, '-' | '+' | '=' | ' ')))
        || t.split_once("  ").is_some_and(|(a, b)| !a.is_empty() && !b.trim().is_empty())
}

/// A text report (a small game's board and steps) in a box: its tables set in columns,
/// each scrolling sideways inside the box when wider than it, and its other lines (prose)
/// wrapping. A run of lines of one kind is one `pre`; blank lines stay with the run before.
pub fn report_text(text: &str) -> String {
    let mut out = String::from("<div class=\"report\">");
    let mut run: Vec<&str> = Vec::new();
    let mut kind = None;
    let flush = |out: &mut String, run: &mut Vec<&str>, cols: bool| {
        if !run.is_empty() {
            let class = if cols { "cols" } else { "prose" };
            out.push_str(&format!("<pre class=\"{class}\">{}</pre>", esc(&run.join("\n"))));
            run.clear();
        }
    };
    for line in text.trim_end().lines() {
        let cols = columned(line);
        if !line.trim().is_empty() && kind.is_some_and(|k| k != cols) {
            // Blank lines between two runs go with neither: the boxes' margins stand for them.
            while run.last().is_some_and(|l| l.trim().is_empty()) {
                run.pop();
            }
            flush(&mut out, &mut run, kind.unwrap_or(false));
        }
        if line.trim().is_empty() && run.is_empty() {
            continue;
        }
        if !line.trim().is_empty() {
            kind = Some(cols);
        }
        run.push(line);
    }
    flush(&mut out, &mut run, kind.unwrap_or(false));
    out.push_str("</div>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escaping_leaves_no_markup() {
        assert_eq!(esc("<b a=\"x\" c='y'>&"), "&lt;b a=&quot;x&quot; c=&#39;y&#39;&gt;&amp;");
        assert_eq!(esc("a\u{0}b\nc"), "ab\nc");
    }

    #[test]
    fn slugs_stay_inside_the_site() {
        assert_eq!(slug("../x y"), "_.._x_y");
        assert_eq!(slug(".hidden"), "_.hidden");
        assert_eq!(slug(""), "_");
        assert_eq!(slug("game-1.b_2"), "game-1.b_2");
    }

    #[test]
    fn a_report_keeps_its_tables_in_columns_and_lets_its_prose_wrap() {
        let text = "game (overdue): round 3\nOptions: rounds = 3\n\nplayer  total  squeeze\nann     10     on 3\n\n\
                    Loc | DP\n----+---\n  1 | .\n\nThe game is over: <ann> wins.\n";
        assert_eq!(
            report_text(text),
            "<div class=\"report\"><pre class=\"prose\">game (overdue): round 3\nOptions: rounds = 3</pre>\
             <pre class=\"cols\">player  total  squeeze\nann     10     on 3\n\nLoc | DP\n----+---\n  1 | .</pre>\
             <pre class=\"prose\">The game is over: &lt;ann&gt; wins.</pre></div>\n"
        );
        // An indented line of prose is prose; a line with a gap in it is a table's.
        assert!(!columned("  ann's pawn at P2 alters fate: a Haven is placed at NF2."));
        assert!(columned("bob     5 3 6  0      no"));
        assert!(!columned("Round 3: ann cashed a round score of 0; bob squeezed in on 4"));
        assert_eq!(report_text(""), "<div class=\"report\"></div>\n");
    }

    #[test]
    fn a_column_class_marks_its_cells() {
        let t =
            classed_table(Some("c"), &["Power", "Order"], &["power", "order"], &[vec!["A".into(), "A vie H".into()]]);
        assert!(t.contains("<caption><span>c</span></caption>"), "{t}");
        assert!(
            t.contains(
                "<td class=\"power\" data-label=\"Power\">A</td><td class=\"order\" data-label=\"Order\">A vie H</td>"
            ),
            "{t}"
        );
    }
}
