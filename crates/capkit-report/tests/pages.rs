//! Snapshots of the generated pages (one per kind of input, and one of hostile strings), and
//! what every page must be: self-contained, script-free, every user string escaped.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;

/// One tag per line, so a snapshot diff shows what changed.
fn readable(html: &str) -> String {
    html.replace("><", ">\n<")
}

fn page(name: &str) -> String {
    common::pages()
        .into_iter()
        .find(|(n, _)| *n == name)
        .map(|(_, html)| html)
        .unwrap()
}

#[test]
fn golden_typo_scores_page() {
    insta::assert_snapshot!(readable(&page("typo")));
}

#[test]
fn golden_classify_profile_page() {
    insta::assert_snapshot!(readable(&page("classify")));
}

#[test]
fn golden_extract_profile_page() {
    insta::assert_snapshot!(readable(&page("extract")));
}

#[test]
fn golden_comparison_page() {
    insta::assert_snapshot!(readable(&page("compare")));
}

#[test]
fn golden_hostile_strings_page() {
    insta::assert_snapshot!(readable(&page("hostile")));
}

#[test]
fn pages_load_nothing_and_run_nothing() {
    for (name, html) in common::pages() {
        let lower = html.to_lowercase();
        // Escaped user text has no `<`, so splitting at `<` finds the real tags only.
        for tag in tags(&lower) {
            let element = tag.split_whitespace().next().unwrap_or("");
            assert!(
                ![
                    "script",
                    "img",
                    "iframe",
                    "link",
                    "object",
                    "embed",
                    "base",
                    "form",
                    "image",
                    "use",
                    "foreignobject"
                ]
                .contains(&element),
                "{name}: a <{element}> element"
            );
            for attribute in tag.split_whitespace().skip(1) {
                assert!(
                    !attribute.starts_with("on"),
                    "{name}: an event handler in <{tag}>"
                );
                assert!(
                    !attribute.starts_with("src") && !attribute.contains("url("),
                    "{name}: a load in <{tag}>"
                );
            }
            if let Some(at) = tag.find("href=") {
                assert!(
                    tag[at..].starts_with("href=\"#"),
                    "{name}: a link leaving the page: <{tag}>"
                );
            }
        }
        // The style sheet imports nothing.
        let style = lower
            .split("<style>")
            .nth(1)
            .and_then(|s| s.split("</style>").next())
            .unwrap();
        assert!(
            !style.contains("url(") && !style.contains("@import"),
            "{name}: the style sheet loads"
        );
        assert!(lower.contains("content-security-policy"), "{name}: no CSP");
    }
}

/// The inside of every tag (`<` to `>`), lowercased input.
fn tags(html: &str) -> impl Iterator<Item = &str> {
    html.split('<').skip(1).filter_map(|s| s.split('>').next())
}

#[test]
fn hostile_strings_are_escaped_text() {
    let html = page("hostile");
    for s in common::HOSTILE {
        let escaped = s
            .replace('&', "&amp;")
            .replace('<', "&lt;")
            .replace('>', "&gt;")
            .replace('"', "&quot;");
        assert!(html.contains(&escaped), "{s:?} is not shown escaped");
    }
    assert!(!html.contains("<script>alert"));
    assert!(!html.contains("<img src=x"));
}

#[test]
fn key_figures_are_on_the_pages() {
    let classify = page("classify");
    // Clean agreement of the example: 7 of 10 texts.
    assert!(classify.contains("70.0 %"));
    assert!(
        classify.contains("student significantly less invariant than teacher")
            || classify.contains("no significant difference between student and teacher")
    );
    assert!(classify.contains("break-even"));
    assert!(classify.contains("Abstention") && classify.contains("Probes"));
    let typo = page("typo");
    for heading in [
        "Rules (needs nothing): learnable from examples alone",
        "Language tables (needs language): reproducible by memorising data",
        "Keyboard tables (needs keyboard): reproducible by memorising a layout",
    ] {
        assert!(typo.contains(heading), "{heading}");
    }
    let extract = page("extract");
    assert!(extract.contains("F1 per field and stage") && extract.contains("Schema validity"));
    let compare = page("compare");
    assert!(
        compare.contains("Students compared pairwise") && compare.contains("cmd:student-folded")
    );
}

/// A sampled report's page names the sample and marks every estimated figure, and only those.
#[test]
fn estimated_figures_are_marked_on_the_page() {
    let html = common::page(&[("sampled.json", common::sampled_classify_report())]);
    let text = readable(&html);
    assert!(text.contains("Teacher sample"), "{text}");
    assert!(text.contains("(estimated)"), "{text}");
    assert!(
        text.contains("prediction-powered estimate (PPI++)"),
        "{text}"
    );
    // Each corrupted point of the curve's table carries its stage's PPI interval.
    let points = text
        .split("<table class=\"curve-points\">")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .unwrap();
    assert_eq!(points.matches("(estimated)").count(), 4, "{points}");
    // Its severity curve is drawn from the estimates, and its area and break-even say so.
    assert!(
        text.contains("(estimated: computed from the estimated points, without an interval)"),
        "{text}"
    );
    // Under a sample, the whose-change figures say which texts they are over.
    assert!(
        text.contains("agreement with its clean answer is over every text"),
        "{text}"
    );
    let full = readable(&common::page(&[("r.json", common::classify_report())]));
    assert!(!full.contains("(estimated)") && !full.contains("Teacher sample"));
    assert!(!full.contains("PPI++") && !full.contains("estimated points"));
}

/// The reviewer's five-student scenario (400-character specs, 50 corruptions, 400 texts) fits
/// in 150 KB, each long spec written once (in the provenance), and its Arabic stage name is
/// bidi-isolated wherever it sits in a sentence.
#[test]
fn the_five_student_page_is_small_and_names_each_spec_once() {
    let (_, html) = common::scenario_pages()
        .into_iter()
        .find(|(n, _)| *n == "five-students")
        .unwrap();
    assert!(html.len() < 150_000, "{} bytes", html.len());
    let comparison = common::five_students();
    for spec in comparison["students"].as_object().unwrap().keys() {
        assert_eq!(spec.len(), 400);
        assert_eq!(html.matches(spec.as_str()).count(), 1, "{spec}");
    }
    assert!(!html.contains("> تصحيف_50 <"));
    assert!(html.contains("<bdi>تصحيف_50</bdi>"));
}

/// Every piece of user text in a sentence is bidi-isolated: on the five-student page each
/// occurrence of the Arabic stage name and probe text is inside `<bdi>` or a `.spec` span
/// (`unicode-bidi: plaintext`), or is the whole content of a table cell, an SVG text or the
/// chart's (unrendered) description, each its own bidi paragraph.
#[test]
fn user_text_is_bidi_isolated() {
    let (_, html) = common::scenario_pages()
        .into_iter()
        .find(|(n, _)| *n == "five-students")
        .unwrap();
    let mut seen = 0;
    for needle in ["تصحيف_50", "ليس good جيدا"] {
        for (at, _) in html.match_indices(needle) {
            seen += 1;
            let before = &html[..at];
            let after = &html[at + needle.len()..];
            let opened = before.rfind('<').map_or("", |i| &before[i..]);
            let isolated = opened == "<bdi>"
                || opened == r#"<span class="spec">"#
                || (opened.ends_with('>')
                    && ["<th", "<td", "<text", "<dd"]
                        .iter()
                        .any(|t| opened.starts_with(t))
                    && after.starts_with("</"))
                || before
                    .rfind("<desc")
                    .is_some_and(|d| before.rfind("</desc>").is_none_or(|e| e < d));
            assert!(
                isolated,
                "{needle:?} not isolated at byte {at}: …{}…",
                &html[before.len().saturating_sub(120)..(at + needle.len() + 40).min(html.len())]
            );
        }
    }
    assert!(seen > 5, "{seen}");
}

#[test]
fn a_field_that_is_not_a_str_is_named_on_the_page_as_the_json_names_it() {
    // A breakdown whose `name` field is the Python int 1 (JSON label `[1]`, stored in Rust as
    // capkit's NUL-led key form): the heat map's row says `[1]`, never the stored form.
    fn rename(map: &mut capture::serde_json::Value) {
        if let Some(obj) = map.as_object_mut()
            && let Some(counts) = obj.remove("name")
        {
            obj.insert("[1]".to_owned(), counts);
        }
    }
    let mut report = common::extract_report();
    let fields = &mut report["fields"];
    rename(&mut fields["clean"]);
    for section in ["corruptions", "invariances"] {
        if let Some(stages) = fields[section].as_object_mut() {
            for stage in stages.values_mut() {
                rename(&mut stage["student"]);
                rename(&mut stage["teacher"]);
            }
        }
    }
    let html = common::page(&[("r.json", report)]);
    assert!(html.contains(">[1]<"), "no row named [1]");
    assert!(
        !html.contains("capkit:key"),
        "the stored form is on the page"
    );
}

/// The HTML between the first `start` after `from` and the next `end`.
fn between<'a>(html: &'a str, start: &str, end: &str) -> &'a str {
    html.split_once(start)
        .and_then(|(_, rest)| rest.split_once(end))
        .map_or("", |(inside, _)| inside)
}

/// Issue 32 on a profile page: every stage's changed-text count, the no-op stages marked and
/// left out of the verdict, each headline against its reference, the teacher's change beside
/// the student's, the stacked bar of new disagreements, and the examples, escaped and isolated.
#[test]
fn a_page_shows_whose_change_and_examples() {
    let report = common::whose_report();
    let html = readable(&page("whose"));
    let n = report["counts"]["n"].as_u64().unwrap();
    // Every stage's changed-text count, as the report has it; the no-op ones marked.
    let mut no_ops = Vec::new();
    for section in ["corruptions", "invariances"] {
        for (name, stage) in report[section].as_object().unwrap() {
            let k = stage["texts_changed"].as_u64().unwrap();
            if k == 0 {
                no_ops.push(name.clone());
                assert!(html.contains(&format!("changed 0 of {n} texts")), "{name}");
            } else {
                assert!(html.contains(&format!("{k} of {n}")), "{name}: {k} of {n}");
            }
        }
    }
    assert_eq!(no_ops, ["no_op"]);
    // The verdict names the no-op stage only to say it measures nothing.
    let verdict = between(&html, "<section class=\"verdict-first\">", "</section>");
    assert!(verdict.contains("Measures nothing"), "{verdict}");
    assert_eq!(verdict.matches("no_op").count(), 1, "{verdict}");
    let corruptions = between(
        &html,
        "<section class=\"corruptions\" id=\"d1-corruptions\">",
        "</section>",
    );
    assert!(corruptions.contains("measures nothing: left out of rankings"));
    // typo_30 declares the teacher's clean answer: its headline is that agreement.
    let typo_30 = &report["corruptions"]["typo_30"];
    assert_eq!(typo_30["reference"], "teacher_clean");
    let headline = typo_30["whose"]["teacher_clean_agreement"]["estimate"]
        .as_f64()
        .unwrap();
    let row = between(corruptions, "<th scope=\"row\">typo_30", "</tr>");
    assert!(
        row.contains(&format!("{:.1} % [", headline * 100.0)),
        "{row}"
    );
    assert!(row.contains("the teacher's clean answer"), "{row}");
    // Its dot (two severities make no curve) is drawn at that agreement, with the same
    // interval.
    let clean = &typo_30["whose"]["teacher_clean_agreement"];
    let interval = format!(
        "{:.1} % [{:.1}, {:.1}]",
        headline * 100.0,
        clean["lower"].as_f64().unwrap() * 100.0,
        clean["upper"].as_f64().unwrap() * 100.0
    );
    assert!(row.contains(&interval), "{row}");
    let dots = between(&html, "<figure class=\"dots\">", "</figure>");
    assert!(
        dots.contains(&format!("typo_30: first-letter {interval}")),
        "{dots}"
    );
    assert!(
        !html.contains("<figure class=\"curve\""),
        "two severities drew a curve"
    );
    let typo_10 = between(corruptions, "<th scope=\"row\">typo_10", "</tr>");
    assert!(
        typo_10.contains("the teacher on the corrupted text"),
        "{typo_10}"
    );
    // The teacher's own change rate, with its interval, beside the student's.
    let whose = between(&html, "<section class=\"whose\">", "</section>");
    let teacher = &report["corruptions"]["typo_10"]["whose"]["teacher_change"];
    assert!(whose.contains(&format!(
        "{:.1} % [{:.1}, {:.1}]",
        teacher["estimate"].as_f64().unwrap() * 100.0,
        teacher["lower"].as_f64().unwrap() * 100.0,
        teacher["upper"].as_f64().unwrap() * 100.0
    )));
    // The stacked bar: a chart with its title and text alternative, segments, a legend.
    assert!(whose.contains("New disagreements: whose answer moved"));
    assert!(whose.contains("<rect class=\"segment\""), "{whose}");
    let d = &report["corruptions"]["typo_30"]["whose"]["new_disagreements"];
    assert!(whose.contains(&format!(
        "typo_30: {} new disagreements, {} teacher only, {} student only, {} both",
        d["teacher_only"].as_u64().unwrap()
            + d["student_only"].as_u64().unwrap()
            + d["both"].as_u64().unwrap(),
        d["teacher_only"],
        d["student_only"],
        d["both"]
    )));
    // Examples: the hostile text escaped inside a <bdi>, the right-to-left override isolated
    // in one, the long text folded and its cut said, the teacher's escalation shown.
    let examples = between(&html, "<section class=\"examples\">", "</section>");
    assert!(
        examples
            .contains("<bdi class=\"ex\">&lt;script&gt;alert(1)&lt;/script&gt; good food</bdi>")
    );
    assert!(examples.contains("<bdi class=\"ex\">\u{202E}good food"));
    assert!(!html.contains("<script>"));
    assert!(examples.contains("<details class=\"text\">"));
    assert!(examples.contains("cut: the report keeps the first 240 characters"));
    assert!(examples.contains("(escalated the clean text)"));
    assert!(examples.contains("Only the teacher's answer changed"));
    assert!(examples.contains("Only the student's answer changed"));
}

/// A report written before issue 32 (no changed-text counts, no whose-change counts, no
/// examples) renders as it did: no new column, section or mark.
#[test]
fn an_older_report_renders_as_before() {
    let mut report = common::whose_report();
    for stage in report["counts"]["corruptions"]
        .as_object_mut()
        .unwrap()
        .values_mut()
    {
        stage.as_object_mut().unwrap().remove("change");
    }
    for stage in report["counts"]["invariances"]
        .as_object_mut()
        .unwrap()
        .values_mut()
    {
        stage.as_object_mut().unwrap().remove("texts_changed");
    }
    report.as_object_mut().unwrap().remove("examples");
    let html = common::page(&[("old.json", report)]);
    for absent in [
        "texts changed",
        "Whose change",
        "Examples",
        "Measures nothing",
        "measures nothing",
        "against the reference",
        "the teacher on the corrupted text",
        "teacher's answer on the corrupted text",
        "class=\"segment\"",
    ] {
        assert!(
            !html.contains(absent),
            "{absent:?} on an older report's page"
        );
    }
    // Without the counts, the no-op stage is ranked like any other.
    assert!(html.contains("no_op") && html.contains("Corruptions"));
}

/// A comparison page gives the changed-text counts, leaves the no-op stage out of the
/// rankings and the pairwise tables, and shows each student's examples.
#[test]
fn a_comparison_leaves_no_op_stages_out_of_its_rankings() {
    let html = readable(&page("whose-compare"));
    let n = common::whose_texts().len();
    let ranking = between(&html, "<table class=\"ranking narrow-cards\">", "</table>");
    assert!(
        ranking.contains("typo_30") && !ranking.contains("no_op"),
        "{ranking}"
    );
    let pairs = between(
        &html,
        "<section class=\"pairs\" id=\"d1-pairs\">",
        "</section>",
    );
    assert!(pairs.contains("Measures nothing"));
    assert_eq!(pairs.matches("no_op").count(), 1, "{pairs}");
    let stages = between(
        &html,
        "<section class=\"stages\" id=\"d1-stages\">",
        "</section>",
    );
    assert!(
        stages.contains(&format!("changed 0 of {n} texts")),
        "{stages}"
    );
    assert!(
        stages.contains(&format!("of {n}"))
            && stages.contains("against the teacher's clean answer")
    );
    // The teacher's own change beside each student's, and each student's new disagreements.
    let whose = between(&html, "<section class=\"whose\">", "</section>");
    assert!(whose.contains("changed its answer") && whose.contains("<rect class=\"segment\""));
    assert!(whose.contains("<text class=\"heading\" x=\"4\" y=\"23.0\">typo_30</text>"));
    let examples = between(
        &html,
        "<section class=\"student-examples\">",
        "</section>\n</section>",
    );
    assert!(examples.contains("Examples: ") && examples.contains("&lt;script&gt;"));
}

/// Issue 36: a suite of two unrelated chains, weights and tags. The chains are two families
/// (each its stage's name, at its declared severity, never their steps' sum); the weights and
/// tags are on the page beside each stage, and the ranking uses the weights and says so.
#[test]
fn weights_and_tags_are_shown_and_rank_the_stages() {
    let json = common::weighted_families();
    let first = json["students"]
        .as_object()
        .unwrap()
        .values()
        .next()
        .unwrap();
    let families: Vec<(&str, Option<&str>, Option<f64>)> = first["suite"]["corruptions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            (
                c["name"].as_str().unwrap(),
                c["family"].as_str(),
                c["severity"].as_f64(),
            )
        })
        .collect();
    assert!(families.contains(&("shout_rep", Some("shout_rep"), Some(0.05))));
    assert!(families.contains(&("messy", Some("messy"), Some(0.15))));
    assert_eq!(first["suite"]["corruptions"][0]["weight"], 3.0);
    assert_eq!(first["suite"]["invariance_meta"]["case"]["tags"][0], "case");
    let html = readable(
        &common::scenario_pages()
            .into_iter()
            .find(|(n, _)| *n == "weighted-families")
            .unwrap()
            .1,
    );
    let ranking = between(&html, "<table class=\"ranking narrow-cards\">", "</table>");
    assert!(
        ranking.contains("each stage counted by its weight"),
        "{ranking}"
    );
    assert!(ranking.contains("all stages, weighted"), "{ranking}");
    // Heaviest first: the typos (3) before the case invariance (2), titlecase (0.25) last.
    let at = |s: &str| ranking.find(&format!("<bdi>{s}</bdi>")).unwrap();
    assert!(
        at("typo_20") < at("case") && at("case") < at("shout_rep"),
        "{ranking}"
    );
    assert!(at("accents_30") < at("title"), "{ranking}");
    assert!(
        ranking.contains("(weight 3; <span class=\"tag\">\n<bdi>typo</bdi>"),
        "{ranking}"
    );
    assert!(
        ranking.contains("(weight 1; <span class=\"tag\">\n<bdi>case</bdi>"),
        "{ranking}"
    );
    // In the heat map of every stage, and beside each stage of the suite.
    let heat = between(
        &html,
        "<section class=\"stages\" id=\"d1-stages\">",
        "</section>",
    );
    assert!(heat.contains("(weight 0.5)"), "{heat}");
    assert!(html.contains("weight 0.25"));
    assert!(!html.contains("0.15000000000000002") && !html.contains("0.30000000000000004"));
    // The typo family (three rates) is the one curve, with its break-even; the chains and the
    // accents (one severity each) are dots, with no break-even of their own.
    assert_eq!(html.matches("<figure class=\"curve\"").count(), 1);
    assert!(html.contains("<figure class=\"curve\" data-family=\"keyboard_typo\">"));
    let dots = between(&html, "<figure class=\"dots\">", "</figure>");
    assert_eq!(dots.matches("<text class=\"heading\"").count(), 4, "{dots}");
    for stage in ["clean", "shout_rep", "messy", "accents_30"] {
        assert!(
            dots.contains(&format!(">{stage}</text>")),
            "{stage}: {dots}"
        );
    }
    assert!(!dots.contains("typo_05") && !html.contains("data-family=\"messy\""));
}
