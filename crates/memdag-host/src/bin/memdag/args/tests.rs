//! The parser of the command line, command by command.

use super::*;

fn parse_str(s: &str) -> Result<Args, String> {
    parse(s.split_whitespace().map(String::from))
}

#[test]
fn parses_commands_and_flags() {
    let a = parse_str("demo --store /tmp/x").unwrap();
    assert_eq!(a.command, Command::Demo);
    assert_eq!(a.store, PathBuf::from("/tmp/x"));
    let a = parse_str("--component=c.wasm recent 周末计划 3").unwrap();
    assert_eq!(
        a.command,
        Command::Recent {
            thread: "周末计划".into(),
            n: 3,
            user: None
        }
    );
    assert_eq!(a.component, Some(PathBuf::from("c.wasm")));
    assert_eq!(
        parse_str("ancestors t12").unwrap().command,
        Command::Ancestors {
            id: "t12".into(),
            depth: 16,
            user: None
        }
    );
    assert_eq!(parse_str("").unwrap().command, Command::Help);
    assert_eq!(parse_str("demo --help").unwrap().command, Command::Help);
}

#[test]
fn parses_search_and_friends() {
    let a = parse_str("search deploy --mode bm25 --k 3 --user lin --json").unwrap();
    assert_eq!(
        a.command,
        Command::Search(Search {
            input: SearchInput::Text("deploy".into()),
            mode: "bm25".into(),
            k: 3,
            thread: None,
            user: Some("lin".into()),
            json: true,
            ranking: Ranking::default(),
            scope: None,
            kinds: Vec::new(),
            now: None,
        })
    );
    let a = parse_str("search boots --scope items --kind procedural --kind tool --now 5").unwrap();
    let Command::Search(s) = a.command else {
        panic!("not a search")
    };
    assert_eq!(s.scope, Some(Scope::Items));
    assert_eq!(s.kinds, [ItemKind::Procedural, ItemKind::Tool]);
    assert_eq!(s.now.as_deref(), Some("5"));
    let a = parse_str(
        "search --batch q.jsonl --fusion rrf --rrf-k 30 --vector-weight 0.3 --context 0 --thread-scope 0 \
         --stopwords off --derived-keys off --field-weights steps=0,keys=2",
    )
    .unwrap();
    let Command::Search(s) = a.command else {
        panic!("not a search")
    };
    assert_eq!(
        s.ranking,
        Ranking {
            rrf: Some(true),
            vector_weight: Some(0.3),
            rrf_k: Some(30.0),
            context: Some(0.0),
            thread_scope: Some(0.0),
            stopwords: Some(false),
            derived_keys: Some(false),
            field_weights: vec![("steps".into(), 0.0), ("keys".into(), 2.0)],
        }
    );
    let a = parse_str("search --batch q.jsonl --mode vector -k 5 --json").unwrap();
    assert!(matches!(
        a.command,
        Command::Search(Search {
            input: SearchInput::Batch(_),
            k: 5,
            ..
        })
    ));
    let a = parse_str("compact t3 --llm-cmd ./fake.sh").unwrap();
    assert_eq!(a.llm_cmd.as_deref(), Some("./fake.sh"));
    assert_eq!(a.cmd_timeout, None);
    let a = parse_str("compact t3 --llm-cmd ./fake.sh --cmd-timeout 2.5").unwrap();
    assert_eq!(a.cmd_timeout, Some(2.5));
    assert!(parse_str("compact t3 --cmd-timeout 0").is_err());
    assert!(parse_str("compact t3 --cmd-timeout soon").is_err());
    assert_eq!(
        parse_str("show t3 --raw").unwrap().command,
        Command::Show {
            id: "t3".into(),
            raw: true,
            user: None
        }
    );
    assert_eq!(
        parse_str("reindex --batch-size 8").unwrap().command,
        Command::Reindex {
            batch_size: Some(8)
        }
    );
    assert_eq!(
        parse_str("reindex").unwrap().command,
        Command::Reindex { batch_size: None }
    );
    assert_eq!(
        parse_str("forget-user mallory").unwrap().command,
        Command::ForgetUser {
            user: "mallory".into()
        }
    );
    assert_eq!(
        parse_str("delete t3").unwrap().command,
        Command::Delete { id: "t3".into() }
    );
    let a = parse_str("limits --limits {\"maxTags\":3}").unwrap();
    assert_eq!(a.command, Command::Limits);
    assert_eq!(a.limits.as_deref(), Some("{\"maxTags\":3}"));
    assert!(matches!(
        parse_str("recall --thread main --budget 300")
            .unwrap()
            .command,
        Command::Recall {
            budget: Some(300),
            ..
        }
    ));
}

#[test]
fn parses_memory_work_graph_and_tools() {
    let a = parse_str(
        "memory add --user ada --kind tool --tool kubectl --source t1 --source t2 --ttl 90s flaky",
    )
    .unwrap();
    let Command::Memory(MemoryCmd::Add(add)) = a.command else {
        panic!("not memory add")
    };
    assert_eq!(
        (add.user.as_str(), add.kind, add.text.as_str()),
        ("ada", ItemKind::Tool, "flaky")
    );
    assert_eq!(add.sources, ["t1", "t2"]);
    assert_eq!(add.fields.ttl.as_deref(), Some("90s"));
    let a = parse_str("memory list --kind fact --all --sort uses --limit 5 --json").unwrap();
    assert!(a.json);
    let Command::Memory(MemoryCmd::List(list)) = a.command else {
        panic!("not memory list")
    };
    assert_eq!(
        (list.kinds, list.all, list.order, list.limit),
        (
            vec![ItemKind::Fact],
            true,
            memdag_host::ItemOrder::Uses,
            Some(5)
        )
    );
    assert_eq!(
        parse_str("memory extract t1 t2").unwrap().command,
        Command::Memory(MemoryCmd::Extract {
            ids: vec!["t1".into(), "t2".into()],
            thread: None,
            user: None
        })
    );
    let a = parse(["work", "set", "--thread", "T", "goal", "ship it"].map(String::from)).unwrap();
    assert_eq!(
        a.command,
        Command::Work(Work {
            thread: "T".into(),
            user: None,
            action: WorkAction::Change {
                op: memdag_host::WorkOp::Set,
                field: "goal".into(),
                value: Some("ship it".into())
            }
        })
    );
    assert!(matches!(
        parse_str("work pop --thread T tasks").unwrap().command,
        Command::Work(Work {
            action: WorkAction::Change { value: None, .. },
            ..
        })
    ));
    assert_eq!(
        parse_str("graph path ada germany --max-depth 3")
            .unwrap()
            .command,
        Command::Graph {
            graph: Graph::Path {
                from: "ada".into(),
                to: "germany".into(),
                max_depth: 3
            },
            user: None
        }
    );
    let Command::Purge(p) = parse_str("purge").unwrap().command else {
        panic!("not purge")
    };
    assert!(p.expired && !p.ended);
    let Command::Purge(p) = parse_str("purge --ended").unwrap().command else {
        panic!("not purge")
    };
    assert!(!p.expired && p.ended);
    assert_eq!(
        parse_str("tools --format anthropic").unwrap().command,
        Command::Tools {
            format: "anthropic".into()
        }
    );
    assert!(matches!(
        parse_str("ingest f.jsonl --extract").unwrap().command,
        Command::Ingest { extract: true, .. }
    ));
    for bad in [
        "memory add x",
        "memory add --user ada",
        "memory update m1",
        "memory list --sort size",
        "memory extract",
        "memory frob",
        "work set --thread T goal",
        "work show",
        "graph path a",
        "search x --scope everything",
        "memory add --user a --kind idea x",
    ] {
        assert!(parse_str(bad).is_err(), "{bad}");
    }
}

#[test]
fn rejects_bad_input() {
    assert!(parse_str("demo --store").is_err());
    assert!(parse_str("demo --frob").is_err());
    assert!(parse_str("recent").is_err());
    assert!(parse_str("recent t x").is_err());
    assert!(parse_str("get a b").is_err());
    assert!(parse_str("launch").is_err());
    assert!(parse_str("search x --mode fuzzy").is_err());
    assert!(parse_str("search").is_err());
    assert!(parse_str("recall").is_err());
    assert!(parse_str("search x --k many").is_err());
    assert!(parse_str("search x --fusion max").is_err());
    assert!(parse_str("search x --vector-weight 1.5").is_err());
    assert!(parse_str("search x --context -1").is_err());
    assert!(parse_str("search x --stopwords maybe").is_err());
    assert!(parse_str("search x --field-weights body=1").is_err());
    assert!(parse_str("search x --field-weights keys=-1").is_err());
}

#[test]
fn an_empty_user_is_refused_and_agent_commands_need_a_named_scope() {
    let parse = |args: &[&str]| parse(args.iter().map(|a| a.to_string()));
    for blank in ["", " ", "\t"] {
        let err = parse(&["search", "x", "--user", blank]).unwrap_err();
        assert!(err.contains("names nobody"), "{err}");
        let err = parse(&["mcp", &format!("--user={blank}")]).unwrap_err();
        assert!(err.contains("names nobody"), "{err}");
    }
    assert!(parse(&["mcp"]).unwrap_err().contains("--all-users"));
    assert!(parse(&["call-tool", "get", "{}"])
        .unwrap_err()
        .contains("--all-users"));
    assert_eq!(
        parse(&["mcp", "--all-users"]).unwrap().command,
        Command::Mcp {
            user: None,
            thread: None
        }
    );
    assert_eq!(
        parse(&["mcp", "--user", "ada"]).unwrap().command,
        Command::Mcp {
            user: Some("ada".into()),
            thread: None
        }
    );
    assert!(parse(&["mcp", "--user", "ada", "--all-users"])
        .unwrap_err()
        .contains("not both"));
    assert!(parse(&["search", "x", "--all-users"])
        .unwrap_err()
        .contains("does not take --all-users"));
    for refused in [
        &["ingest", "f"][..],
        &["export", "out"],
        &["delete", "x"],
        &["purge"],
    ] {
        let mut args = refused.to_vec();
        args.extend(["--user", "ada"]);
        let err = parse(&args).unwrap_err();
        assert!(err.contains("does not take --user"), "{refused:?}: {err}");
    }
    assert_eq!(
        parse(&["recent", "t", "--user", "ada"]).unwrap().command,
        Command::Recent {
            thread: "t".into(),
            n: 10,
            user: Some("ada".into())
        }
    );
}
