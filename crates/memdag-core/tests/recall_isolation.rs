//! Users never see each other's memory: a property test over random multi-user stores and
//! queries through every read that names a user (recall, search in each mode, grep, the DAG
//! walks, get), and the case that was reported.

use memdag_core::recall::RecallQuery;
use memdag_core::search::{GrepQuery, SearchFilter, SearchMode, SearchQuery};
use memdag_core::{Direction, NewTurn, Store};
use proptest::prelude::*;

fn add(
    s: &mut Store,
    id: &str,
    thread: &str,
    user: &str,
    input: &str,
    parents: &[&str],
    tags: &[&str],
) {
    s.add_turn(NewTurn {
        id: Some(id.into()),
        thread: thread.into(),
        user: user.into(),
        created_at: 1_700_000_000_000 + s.len() as i64,
        input: input.into(),
        output: format!("noted: {input}"),
        parents: parents.iter().map(|p| p.to_string()).collect(),
        tags: tags.iter().map(|t| t.to_string()).collect(),
        ..Default::default()
    })
    .unwrap();
}

#[test]
fn bobs_recall_never_shows_alices_password() {
    let mut s = Store::new();
    add(
        &mut s,
        "a1",
        "support",
        "alice",
        "my bank password is hunter2",
        &[],
        &[],
    );
    add(
        &mut s,
        "b1",
        "support",
        "bob",
        "what is the password policy",
        &["a1"],
        &[],
    );
    add(
        &mut s,
        "g",
        "faq",
        "admin",
        "password resets need two factors",
        &[],
        &["shared"],
    );
    add(&mut s, "b2", "support", "bob", "thanks", &["g"], &[]);
    let recall = s
        .recall(&RecallQuery {
            thread: "support".into(),
            user: Some("bob".into()),
            query_text: Some("what is the password".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(!recall.block.contains("hunter2"), "{}", recall.block);
    assert!(recall.items.iter().all(|i| i.id != "a1"));
    assert!(recall.items.iter().any(|i| i.id == "b1"));
    assert!(
        recall.items.iter().any(|i| i.id == "g"),
        "a shared record is visible: {:?}",
        recall.items
    );
    // A store-wide call (no user) still sees everything; so does an explicit admin view.
    let all = s
        .recall(&RecallQuery {
            thread: "support".into(),
            query_text: Some("password".into()),
            ..Default::default()
        })
        .unwrap();
    assert!(all.block.contains("hunter2"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, .. ProptestConfig::default() })]
    #[test]
    fn no_recall_section_leaks_another_users_record(
        turns in prop::collection::vec((0u8..3, 0u8..3, 0u8..6, any::<bool>(), prop::collection::vec(any::<prop::sample::Index>(), 0..3)), 1..40),
        asker in 0u8..3,
        thread in 0u8..3,
        word in 0u8..6,
    ) {
        const WORDS: [&str; 6] = ["password", "budget", "deploy", "trip", "doctor", "address"];
        let mut s = Store::new();
        s.set_auto_embed(true);
        let mut ids: Vec<String> = Vec::new();
        for (i, (user, th, w, shared, parents)) in turns.iter().enumerate() {
            let id = format!("r{i}");
            let ps: Vec<&str> = parents.iter().filter(|_| !ids.is_empty()).map(|p| ids[p.index(ids.len())].as_str()).collect();
            let mut ps = ps;
            ps.sort_unstable();
            ps.dedup();
            let tags: &[&str] = if *shared { &["shared"] } else { &[] };
            add(&mut s, &id, &format!("t{th}"), &format!("u{user}"), &format!("secret {} <{id}> of u{user}", WORDS[*w as usize]), &ps, tags);
            ids.push(id);
        }
        let user = format!("u{asker}");
        let recall = s.recall(&RecallQuery {
            thread: format!("t{thread}"),
            user: Some(user.clone()),
            query_text: Some(format!("tell me the {}", WORDS[word as usize])),
            ..Default::default()
        }).unwrap();
        for item in &recall.items {
            let r = s.get(&item.id).unwrap();
            prop_assert!(r.visible_to(Some(&user)), "{} of {} reached {user}", r.id, r.user);
        }
        for r in s.iter().filter(|r| !r.visible_to(Some(&user))) {
            let marker = format!("<{}>", r.id);
            prop_assert!(!recall.block.contains(&marker), "{} of {} is in the block of {user}", r.id, r.user);
        }
        let as_user = SearchFilter { user: Some(user.clone()), ..Default::default() };
        for mode in [SearchMode::Bm25, SearchMode::Vector, SearchMode::Hybrid] {
            let hits = s.search(&SearchQuery {
                text: format!("secret {}", WORDS[word as usize]),
                mode,
                k: 50,
                filter: as_user.clone(),
                ..Default::default()
            }).unwrap();
            for h in &hits {
                let r = s.get(&h.id).unwrap();
                prop_assert!(r.visible_to(Some(&user)), "search {mode:?}: {} of {} reached {user}", r.id, r.user);
            }
        }
        let matches = s.grep(&GrepQuery {
            pattern: "secret".into(),
            filter: as_user.clone(),
            ..Default::default()
        }).unwrap();
        for m in &matches {
            let r = s.get(&m.id).unwrap();
            prop_assert!(r.visible_to(Some(&user)), "grep: {} of {} reached {user}", r.id, r.user);
        }
        // Every visible record's own grep hit is there: isolation hides nothing of the user's.
        let visible = s.iter().filter(|r| r.visible_to(Some(&user))).count();
        let distinct: std::collections::BTreeSet<&str> = matches.iter().map(|m| m.id.as_str()).collect();
        prop_assert_eq!(distinct.len(), visible);
        for r in s.iter() {
            let seen = s.get_as(Some(&user), &r.id).unwrap();
            prop_assert_eq!(seen.is_some(), r.visible_to(Some(&user)));
            for direction in [Direction::Ancestors, Direction::Descendants] {
                match s.walk_as(Some(&user), &r.id, direction, 64, 1000) {
                    Ok(walked) => {
                        prop_assert!(r.visible_to(Some(&user)));
                        for w in walked {
                            prop_assert!(w.visible_to(Some(&user)), "walk: {} of {} reached {user}", w.id, w.user);
                        }
                    }
                    Err(e) => {
                        prop_assert_eq!(e.code(), "NOT_FOUND");
                        prop_assert!(!r.visible_to(Some(&user)));
                    }
                }
            }
        }
    }
}

#[test]
fn a_user_walk_passes_through_hidden_records_without_counting_them() {
    let mut s = Store::new();
    add(&mut s, "a1", "t", "alice", "start", &[], &[]);
    add(&mut s, "b1", "t", "bob", "bob's step", &["a1"], &[]);
    add(&mut s, "b2", "t", "bob", "bob again", &["b1"], &[]);
    add(&mut s, "a2", "t", "alice", "alice again", &["b2"], &[]);
    let walked: Vec<&str> = s
        .walk_as(Some("alice"), "a2", Direction::Ancestors, 64, 1)
        .unwrap()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(walked, ["a1"], "the limit counts only what alice may see");
    let all: Vec<&str> = s
        .ancestors("a2", 64, 10)
        .unwrap()
        .iter()
        .map(|r| r.id.as_str())
        .collect();
    assert_eq!(all, ["b2", "b1", "a1"]);
    assert_eq!(
        s.walk_as(Some("alice"), "b1", Direction::Descendants, 64, 10)
            .unwrap_err()
            .code(),
        "NOT_FOUND"
    );
}
