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
    table_of("", caption, head, rows)
}

/// [`table`], each row shown as a card of labelled lines on a narrow screen.
pub fn card_table(caption: Option<&str>, head: &[&str], rows: &[Vec<String>]) -> String {
    table_of(" class=\"cards\"", caption, head, rows)
}

fn table_of(class: &str, caption: Option<&str>, head: &[&str], rows: &[Vec<String>]) -> String {
    let mut out = format!("<div class=\"scroll\"><table{class}>");
    if let Some(c) = caption {
        out.push_str(&format!("<caption>{}</caption>", esc(c)));
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
            out.push_str(&format!("<td data-label=\"{label}\">{c}</td>"));
        }
        out.push_str("</tr>\n");
    }
    out.push_str("</tbody></table></div>\n");
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
}
