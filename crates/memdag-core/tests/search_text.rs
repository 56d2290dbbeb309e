//! Mode-2 search over text: CJK matching, filters before truncation, snippets, grep, and the
//! bad inputs that must give a coded error or an empty result, never a panic or a hang.

use memdag_core::search::{GrepQuery, SearchFilter, SearchMode, SearchQuery};
use memdag_core::{NewTurn, Step, Store};

fn add(store: &mut Store, id: &str, thread: &str, input: &str, output: &str) {
    let turn = NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: format!("user-{thread}"),
        created_at: 1_000 * store.len() as i64,
        input: input.into(),
        output: output.into(),
        tags: vec![thread.to_string()],
        ..Default::default()
    };
    store.add_turn(turn).expect("add");
}

fn ids(store: &Store, q: &SearchQuery) -> Vec<String> {
    store
        .search(q)
        .expect("search")
        .into_iter()
        .map(|h| h.id)
        .collect()
}

/// A BM25 query for what matches: without thread context, which adds the neighbours of
/// matches (see search_ranking.rs).
fn text(t: &str) -> SearchQuery {
    SearchQuery {
        text: t.into(),
        mode: SearchMode::Bm25,
        context: 0.0,
        ..Default::default()
    }
}

#[test]
fn cjk_bigrams_match_inside_longer_runs() {
    let mut s = Store::new();
    add(&mut s, "zh", "t", "我们的记忆系统很快", "");
    add(&mut s, "sys", "t", "系统 crashed again", "");
    add(&mut s, "ja", "t", "エージェントのメモリ", "");
    add(&mut s, "ko", "t", "기억 시스템", "");
    add(&mut s, "en", "t", "memory system", "");
    assert_eq!(ids(&s, &text("记忆")), ["zh"]);
    let mut both = ids(&s, &text("系统"));
    both.sort();
    assert_eq!(both, ["sys", "zh"]);
    assert_eq!(ids(&s, &text("メモリ")), ["ja"]);
    assert_eq!(ids(&s, &text("시스템")), ["ko"]);
    assert_eq!(ids(&s, &text("MEMORY")), ["en"]);
    let hit = &s.search(&text("记忆")).unwrap()[0];
    assert!(hit.snippet.contains("«记忆»"), "{}", hit.snippet);
}

#[test]
fn filters_apply_before_truncation() {
    let mut s = Store::new();
    for i in 0..60 {
        add(
            &mut s,
            &format!("a{i}"),
            "alpha",
            "deploy deploy deploy failed",
            "",
        );
    }
    for i in 0..5 {
        add(
            &mut s,
            &format!("b{i}"),
            "beta",
            &format!("a long note that mentions deploy once, number {i}"),
            "",
        );
    }
    let only_beta = |mut q: SearchQuery, f: SearchFilter| {
        q.k = 3;
        q.filter = f;
        let hits = ids(&s, &q);
        assert_eq!(hits.len(), 3, "{hits:?}");
        assert!(hits.iter().all(|h| h.starts_with('b')), "{hits:?}");
    };
    let thread = SearchFilter {
        thread: Some("beta".into()),
        ..Default::default()
    };
    let user = SearchFilter {
        user: Some("user-beta".into()),
        ..Default::default()
    };
    let tags = SearchFilter {
        tags: vec!["beta".into()],
        ..Default::default()
    };
    let since = SearchFilter {
        since: Some(60_000),
        ..Default::default()
    };
    let subset = SearchFilter {
        ids: Some(vec!["b1".into(), "b2".into(), "b4".into(), "nope".into()]),
        ..Default::default()
    };
    for f in [thread, user, tags, since, subset] {
        only_beta(text("deploy"), f);
    }
    let until = SearchFilter {
        until: Some(2_000),
        ..Default::default()
    };
    assert_eq!(
        ids(
            &s,
            &SearchQuery {
                filter: until,
                dedup: false,
                ..text("deploy")
            }
        ),
        ["a0", "a1"]
    );
}

#[test]
fn dedup_and_min_score() {
    let mut s = Store::new();
    add(&mut s, "x1", "t", "same text here", "same");
    add(&mut s, "x2", "t", "same text here", "same");
    add(&mut s, "y", "t", "text", "other");
    assert_eq!(ids(&s, &text("same text")), ["x1", "y"]);
    assert_eq!(
        ids(
            &s,
            &SearchQuery {
                dedup: false,
                ..text("same text")
            }
        )
        .len(),
        3
    );
    assert!(ids(
        &s,
        &SearchQuery {
            min_score: Some(1e9),
            ..text("same text")
        }
    )
    .is_empty());
}

#[test]
fn compact_and_steps_are_searchable_and_reindexed() {
    let mut s = Store::new();
    let turn = NewTurn {
        id: Some("r".into()),
        thread: "t".into(),
        input: "hello".into(),
        steps: vec![Step {
            tool: "kubectl".into(),
            args: "{\"pod\":\"web-7\"}".into(),
            result: "CrashLoopBackOff".into(),
            ok: false,
        }],
        ..Default::default()
    };
    s.add_turn(turn).unwrap();
    assert_eq!(ids(&s, &text("crashloopbackoff")), ["r"]);
    assert_eq!(ids(&s, &text("kubectl")), ["r"]);
    let compact = memdag_core::CompactNode {
        summary: "rollback of the canary".into(),
        sections: vec![],
    };
    s.set_compact("r", Some(compact)).unwrap();
    assert_eq!(ids(&s, &text("canary")), ["r"]);
    s.set_compact("r", None).unwrap();
    assert!(ids(&s, &text("canary")).is_empty());
}

#[test]
fn bad_queries_give_coded_errors_or_nothing() {
    let mut s = Store::new();
    add(&mut s, "a", "t", "some text", "");
    let code = |q: SearchQuery| s.search(&q).unwrap_err().code();
    assert_eq!(code(SearchQuery::default()), "INVALID_INPUT");
    assert_eq!(code(text("   ")), "INVALID_INPUT");
    assert_eq!(code(SearchQuery { k: 0, ..text("x") }), "INVALID_INPUT");
    let huge = "word ".repeat(2 * 1024 * 1024);
    let t = std::time::Instant::now();
    assert_eq!(code(text(&huge)), "INVALID_INPUT");
    assert!(t.elapsed().as_millis() < 500);
    assert!(s.search(&text("?!?")).unwrap().is_empty());
    assert!(s.search(&text("unknownword")).unwrap().is_empty());
    // A vector query against a store without vectors is empty, not an error.
    let vq = SearchQuery {
        embedding: Some(vec![1.0, 0.0]),
        mode: SearchMode::Vector,
        ..Default::default()
    };
    assert!(s.search(&vq).unwrap().is_empty());
    let nan = SearchQuery {
        embedding: Some(vec![f32::NAN, 1.0]),
        mode: SearchMode::Vector,
        ..Default::default()
    };
    assert_eq!(code(nan), "INVALID_INPUT");
    let zero = SearchQuery {
        embedding: Some(vec![0.0, 0.0]),
        mode: SearchMode::Vector,
        ..Default::default()
    };
    assert_eq!(code(zero), "INVALID_INPUT");
}

#[test]
fn grep_reports_field_line_and_offsets() {
    let mut s = Store::new();
    let turn = NewTurn {
        id: Some("g".into()),
        thread: "t".into(),
        input: "first line\nsecond ERROR 42\nthird".into(),
        output: "no match".into(),
        steps: vec![Step {
            tool: "sh".into(),
            args: "ls".into(),
            result: "x\ny\nerror 7".into(),
            ok: true,
        }],
        ..Default::default()
    };
    s.add_turn(turn).unwrap();
    let q = GrepQuery {
        pattern: r"error \d+".into(),
        case_insensitive: true,
        ..Default::default()
    };
    let m = s.grep(&q).unwrap();
    assert_eq!(m.len(), 2);
    assert_eq!(
        (m[0].field.as_str(), m[0].line, m[0].start, m[0].end),
        ("input", 2, 18, 26)
    );
    assert_eq!(m[0].text, "ERROR 42");
    assert_eq!((m[1].field.as_str(), m[1].line), ("steps[0].result", 3));
    let only_input = GrepQuery {
        fields: vec!["input".into()],
        ..q.clone()
    };
    assert_eq!(s.grep(&only_input).unwrap().len(), 1);
    let capped = GrepQuery {
        max_matches: 1,
        ..q
    };
    assert_eq!(s.grep(&capped).unwrap().len(), 1);
}

#[test]
fn grep_refuses_bad_patterns_without_hanging() {
    let mut s = Store::new();
    add(&mut s, "a", "t", &"a".repeat(100_000), "");
    let code = |p: &str| {
        s.grep(&GrepQuery {
            pattern: p.into(),
            ..Default::default()
        })
        .unwrap_err()
        .code()
    };
    assert_eq!(code(""), "INVALID_INPUT");
    assert_eq!(code("("), "INVALID_INPUT");
    assert_eq!(code(&"a".repeat(5000)), "INVALID_INPUT");
    assert_eq!(code("(a{1000}){1000}"), "INVALID_INPUT");
    let t = std::time::Instant::now();
    let m = s
        .grep(&GrepQuery {
            pattern: "(a*)*b".into(),
            ..Default::default()
        })
        .unwrap();
    assert!(m.is_empty());
    assert!(t.elapsed().as_secs() < 5);
    let bad_field = GrepQuery {
        pattern: "a".into(),
        fields: vec!["nope".into()],
        ..Default::default()
    };
    assert_eq!(s.grep(&bad_field).unwrap_err().code(), "INVALID_INPUT");
}

#[test]
fn top_k_matches_exhaustive_scoring() {
    use memdag_core::search::Bm25Params;
    let words = [
        "the", "a", "what", "did", "caroline", "melanie", "paint", "lake", "camp", "book", "x1",
        "x2",
    ];
    let mut seed = 42u64;
    let mut next = move || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (seed >> 33) as usize
    };
    let mut s = Store::new();
    for i in 0..800 {
        let len = 3 + next() % 12;
        // Skewed: low indices (common words) far more often.
        let text: Vec<&str> = (0..len)
            .map(|_| words[(next() % words.len()) * (next() % words.len()) / words.len()])
            .collect();
        add(&mut s, &format!("d{i}"), "t", &text.join(" "), "");
    }
    let index = s.search_index().text();
    let params = Bm25Params::default();
    for q in [
        "the caroline",
        "what did melanie paint",
        "a the what did lake",
        "x1 the",
        "book camp the a",
    ] {
        let tq = index.query(q, false);
        for k in [1, 5, 20] {
            let got: Vec<(u32, f32)> = index
                .search(&tq, &params, k, |_| true)
                .iter()
                .map(|h| (h.doc, h.score))
                .collect();
            let mut all: Vec<(u32, f32)> = (0..800u32)
                .map(|d| (d, index.score_doc(&tq, &params, d)))
                .filter(|x| x.1 > 0.0)
                .collect();
            all.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
            all.truncate(k);
            assert_eq!(got, all, "query {q:?} k {k}");
        }
    }
}

#[test]
fn snippets_mark_what_the_query_matched_by_not_its_stop_words() {
    let mut s = Store::new();
    add(
        &mut s,
        "a",
        "t",
        "Why would the refresh get a 401?",
        "The token refresh is refused because the clock is in seconds",
    );
    let hit = &s.search(&text("why did the token refresh fail?")).unwrap()[0];
    assert!(hit.snippet.contains("«refresh»"), "{}", hit.snippet);
    assert!(!hit.snippet.contains("«the»"), "{}", hit.snippet);
    assert!(!hit.snippet.contains("«Why»"), "{}", hit.snippet);
    // With stop words kept, they are matched and marked.
    let keep = SearchQuery {
        drop_stopwords: false,
        ..text("why did the token refresh fail?")
    };
    let hit = &s.search(&keep).unwrap()[0];
    assert!(
        hit.snippet.contains("«the»") || hit.snippet.contains("«The»"),
        "{}",
        hit.snippet
    );
    // A query of stop words only keeps them, and marks them.
    let hit = &s.search(&text("why would the")).unwrap()[0];
    assert!(hit.snippet.contains("«Why»"), "{}", hit.snippet);
}
