//! Chinese clauses: explicit first-person statements (我叫…, 我住在…, 我不吃…) and standing
//! instructions (记住…, 以后不要…).
//!
//! A Chinese sentence often states its subject once: in "我叫王磊，住在上海，是做产品经理的"
//! only the first clause says 我. So a clause may leave out 我 when an earlier clause of its
//! sentence was in the first person (`first_person`), or when it opens with words that only
//! describe oneself (现在在…做…, 最近开始…, 跳槽到…).

use std::string::String;
use std::sync::OnceLock;
use std::vec::Vec;

use regex::Regex;

use super::chat_words::ZH_OPENERS as OPENERS;
use super::lexicon::{ZH_LANGUAGES, ZH_OCCUPATIONS, ZH_OTHERS};
use super::text::{laughs, with_tail};
use super::Extracted;
use crate::item::ItemKind;

/// The items one Chinese clause states.
pub fn clause(raw: &str, rest: &[&str], first_person: bool, sentence: &str) -> Vec<Extracted> {
    if laughs(raw) {
        return Vec::new();
    }
    let c = strip_openers(raw);
    if c.is_empty() {
        return Vec::new();
    }
    if let Some(found) = remember(c, rest) {
        return found;
    }
    if let Some(rest_of) = c.strip_prefix("下次") {
        if !rest_of.is_empty() && !is_question(c) {
            let text = with_tail(c, rest, "，", is_statement);
            return std::vec![Extracted {
                kind: ItemKind::Procedural,
                ..Extracted::personal(text)
            }];
        }
    }
    if let Some(found) = instruction(c, rest) {
        return found;
    }
    if is_question(c) || is_request(c) || is_hypothetical(c) {
        return Vec::new();
    }
    if let Some(p) = partner(c) {
        return std::vec![p];
    }
    if about_others(c) {
        return Vec::new();
    }
    // "上周过完生日，29了": an age said after a birthday.
    if sentence.contains("生日") || sentence.contains('岁') {
        if let Some(n) = number(c.trim_end_matches(['了', '啦']).trim_end_matches('岁')) {
            if (5..=120).contains(&n) {
                return std::vec![
                    Extracted::personal(std::format!("年龄：{n}")).with("age", n.to_string())
                ];
            }
        }
    }
    let greeted = ["你好", "您好", "大家好", "嗨", "哈喽"]
        .iter()
        .any(|g| sentence.starts_with(g));
    if greeted {
        if let Some(n) = bare_name(c) {
            return std::vec![n];
        }
    }
    statement(c, rest, first_person)
}

/// "你好，我是李雷": a name of two or three characters after a greeting.
fn bare_name(c: &str) -> Option<Extracted> {
    let v = c.strip_prefix("我是")?;
    let n = v.chars().count();
    let looks = (2..=3).contains(&n)
        && v.chars().all(crate::search::analyzer::is_cjk)
        && !is_occupation(v)
        && !v.contains(['的', '人', '个', '在', '了', '新', '老']);
    looks.then(|| Extracted::personal(std::format!("名字：{v}")).with("name", v))
}

fn strip_openers(s: &str) -> &str {
    let mut t = s.trim();
    loop {
        let Some(o) = OPENERS.iter().find(|o| t.starts_with(*o)) else {
            return t;
        };
        t = t[o.len()..].trim_start_matches(|c: char| {
            c.is_whitespace() || matches!(c, '，' | ',' | '：' | ':' | '！' | '~')
        });
    }
}

fn is_question(c: &str) -> bool {
    let words = [
        "什么",
        "怎么",
        "怎样",
        "哪",
        "多少",
        "几点",
        "几个",
        "几天",
        "为什么",
        "为啥",
        "是不是",
        "能不能",
        "可不可以",
        "有没有",
        "要不要",
        "会不会",
        "好不好",
        "行不行",
        "对不对",
        "咋",
        "如何",
        "多久",
        "多大",
        "多远",
        "谁",
    ];
    c.ends_with(['？', '?', '吗', '呢', '么']) || words.iter().any(|w| c.contains(w))
}

fn is_request(c: &str) -> bool {
    [
        "帮我",
        "请帮",
        "给我",
        "推荐",
        "麻烦",
        "能帮",
        "帮忙",
        "告诉我",
        "想问",
        "请问",
        "看看",
    ]
    .iter()
    .any(|w| c.starts_with(w))
}

fn is_hypothetical(c: &str) -> bool {
    [
        "如果",
        "假如",
        "要是",
        "万一",
        "假设",
        "等我",
        "打算",
        "想要",
        "准备",
        "考虑",
        "可能会",
        "也许",
        "或许",
        "想去",
        "想学",
        "想换",
    ]
    .iter()
    .any(|w| c.contains(w))
}

fn about_others(c: &str) -> bool {
    let body = c
        .strip_prefix("我们家的")
        .or_else(|| c.strip_prefix("我们的"))
        .or_else(|| c.strip_prefix("我的"))
        .or_else(|| c.strip_prefix("我家"))
        .or_else(|| c.strip_prefix('我'))
        .unwrap_or(c);
    ZH_OTHERS.iter().any(|o| body.starts_with(o)) || c.starts_with(['他', '她'])
}

fn is_statement(s: &str) -> bool {
    !is_question(s) && !is_request(s) && !laughs(s) && !s.starts_with(['帮', '请', '别', '给'])
}

fn sequenced(s: &str) -> bool {
    ["之前", "以前先", "之后", "先", "再", "然后", "下次"]
        .iter()
        .any(|w| s.contains(w))
}

/// 记住…, 记一下：…, 再提醒一下：what follows, as items, else one instruction.
fn remember(c: &str, rest: &[&str]) -> Option<Vec<Extracted>> {
    const MARKERS: [&str; 10] = [
        "请记住",
        "你记住",
        "帮我记住",
        "记住",
        "记一下",
        "记下来",
        "记得",
        "再提醒一下",
        "提醒一下",
        "别忘了",
    ];
    let marker = MARKERS.iter().find(|m| c.starts_with(*m))?;
    let content = c[marker.len()..].trim_start_matches(['：', ':', '，', ',', ' ']);
    let mut parts: Vec<&str> = Vec::new();
    if !content.is_empty() {
        parts.push(content);
    }
    parts.extend(
        rest.iter()
            .copied()
            .filter(|p| is_statement(p) || p.starts_with("以后")),
    );
    if parts.is_empty() {
        return Some(Vec::new());
    }
    let mut found = Vec::new();
    for (i, p) in parts.iter().enumerate() {
        found.extend(statement(strip_openers(p), &parts[i + 1..], true));
    }
    if found.is_empty() {
        let whole = parts.join("，");
        let kind = if sequenced(&whole) {
            ItemKind::Procedural
        } else {
            ItemKind::Personal
        };
        if let Some(lang) = reply_language(&whole) {
            return Some(std::vec![lang]);
        }
        found.push(Extracted {
            kind,
            ..Extracted::personal(whole)
        });
    }
    Some(found)
}

/// 以后…, 从现在开始…, 每次都…: a standing instruction.
fn instruction(c: &str, rest: &[&str]) -> Option<Vec<Extracted>> {
    const MARKERS: [&str; 21] = [
        "以后",
        "今后",
        "往后",
        "从现在开始",
        "从现在起",
        "从今以后",
        "从今往后",
        "每次都",
        "永远",
        "别再",
        "不要再",
        "千万别",
        "千万不要",
        "一律",
        "请以后",
        "请一直",
        "请每次",
        "请永远",
        "总是",
        "一直都",
        "请始终",
    ];
    let marker = MARKERS.iter().find(|m| c.starts_with(*m))?;
    if c[marker.len()..]
        .chars()
        .filter(|ch| ch.is_alphanumeric())
        .count()
        < 2
    {
        return Some(Vec::new());
    }
    if let Some(lang) = reply_language(c) {
        return Some(std::vec![lang]);
    }
    let text = with_tail(c, rest, "，", |s| !is_question(s) && !laughs(s));
    let kind = if sequenced(&text) {
        ItemKind::Procedural
    } else {
        ItemKind::Personal
    };
    Some(std::vec![Extracted {
        kind,
        standing: true,
        ..Extracted::personal(text)
    }])
}

/// 用中文回答: the language to reply in.
fn reply_language(c: &str) -> Option<Extracted> {
    let at = c.find('用')?;
    let after = &c[at + '用'.len_utf8()..];
    let lang = ZH_LANGUAGES.iter().find(|l| after.starts_with(*l))?;
    let verb = &after[lang.len()..];
    let replies = [
        "回答", "回复", "答", "说", "交流", "写", "聊", "沟通", "跟我", "和我",
    ];
    replies
        .iter()
        .any(|v| verb.starts_with(v) || c[..at].contains(v))
        .then(|| Extracted::personal(std::format!("回复语言：{lang}")).with("language", *lang))
}

fn partner(c: &str) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^我(?:的)?(?:老公|老婆|男朋友|女朋友|爱人|对象|先生|太太|未婚夫|未婚妻)(?:叫|名叫|的名字是|的名字叫)([^，。的]{1,8})$").expect("valid")
    });
    let name = re.captures(c)?.get(1)?.as_str();
    Some(Extracted::personal(std::format!("伴侣：{name}")).with("partner", name))
}

/// What one first-person clause states.
fn statement(c: &str, rest: &[&str], first_person: bool) -> Vec<Extracted> {
    // The clause with its subject: 我… as written, or an implied 我.
    let (body, explicit) = match c.strip_prefix("我们").or_else(|| c.strip_prefix('我')) {
        Some(b) => (b, true),
        None => (c, false),
    };
    let implied = first_person || opens_self_description(c);
    if !explicit && !implied {
        return Vec::new();
    }
    if body.starts_with(['不', '没']) && !dislike_verb(body) {
        return Vec::new();
    }
    if let Some(e) = no_longer(c, body) {
        return std::vec![e];
    }
    if let Some(found) = work(body) {
        return found;
    }
    type Rule = fn(&str, &str, &[&str]) -> Option<Extracted>;
    let rules: [Rule; 10] = [
        name, age, residence, allergy, diet, dislikes, likes, has, origin, school,
    ];
    rules
        .iter()
        .find_map(|rule| rule(c, body, rest))
        .into_iter()
        .collect()
}

/// 我已经不吃素了, 我不再住在杭州了, 我不在腾讯了: the statement it denies, to be ended.
fn no_longer(c: &str, body: &str) -> Option<Extracted> {
    let ended = body.ends_with('了') || body.contains("不再") || body.contains("已经不");
    if !ended {
        return None;
    }
    let denied = body
        .trim_start_matches("已经")
        .strip_prefix("不再")
        .or_else(|| body.trim_start_matches("已经").strip_prefix('不'))?;
    let denied = denied.trim_end_matches('了');
    if denied.is_empty()
        || dislike_verb(body.trim_start_matches("已经"))
            && !body.contains("不再")
            && !body.starts_with("已经")
    {
        return None;
    }
    let positive = std::format!("我{denied}");
    let found = statement(&positive, &[], false);
    let e = found.into_iter().find(|e| e.relation.is_some())?;
    Some(Extracted {
        retract: true,
        text: c.trim().into(),
        ..e
    })
}

fn opens_self_description(c: &str) -> bool {
    [
        "现在在",
        "目前在",
        "现在住",
        "最近开始",
        "开始",
        "又开始",
        "重新开始",
        "跳槽",
        "入职",
        "刚入职",
        "搬到",
        "刚搬到",
        "住在",
        "是做",
        "在做",
        "今年",
    ]
    .iter()
    .any(|w| c.starts_with(w))
}

fn dislike_verb(body: &str) -> bool {
    let b = body.trim_start_matches([
        '也', '就', '从', '来', '一', '直', '平', '时', '真', '的', '基', '本',
    ]);
    [
        "不吃",
        "不喝",
        "不喜欢",
        "不爱",
        "不太",
        "不怎么",
        "不能吃",
        "不能喝",
        "不碰",
        "不抽",
        "从不",
        "不沾",
        "吃不了",
        "喝不了",
    ]
    .iter()
    .any(|w| b.starts_with(w))
}

/// A value: up to a particle or punctuation that ends it, without a trailing 了/的/啦.
fn value(s: &str) -> String {
    let s = s.trim();
    let end = s
        .find([
            '，', ',', '。', '！', '？', '；', '吗', '呢', '吧', '啊', '呀', '哈',
        ])
        .unwrap_or(s.len());
    s[..end]
        .trim_end_matches(['了', '的', '啦', '哦', '嘛', '喔', '噢'])
        .trim()
        .into()
}

fn name(c: &str, body: &str, _: &[&str]) -> Option<Extracted> {
    let v = ["叫", "名叫", "的名字是", "的名字叫", "是叫"]
        .iter()
        .find_map(|p| body.strip_prefix(p))
        .or_else(|| {
            body.strip_prefix("可以叫我")
                .or_else(|| body.strip_prefix("叫我"))
        })
        .or_else(|| {
            c.strip_prefix("大家都叫我")
                .or_else(|| c.strip_prefix("朋友都叫我"))
        })?;
    let v = value(v.trim_end_matches(['就', '行', '好', '可', '以']));
    let v = v.trim_end_matches("就行").trim_end_matches("就好");
    let n = v.chars().count();
    ((1..=6).contains(&n) && !v.contains(['什', '啥', '谁']))
        .then(|| Extracted::personal(std::format!("名字：{v}")).with("name", v))
}

fn age(c: &str, body: &str, _: &[&str]) -> Option<Extracted> {
    let b = body
        .trim_start_matches("今年")
        .trim_start_matches("现在")
        .trim_start_matches("已经");
    let b = b
        .trim_end_matches(['了', '啦'])
        .trim_end_matches("周岁")
        .trim_end_matches('岁');
    let n = number(b)?;
    let said_age =
        body.contains('岁') || body.starts_with("今年") || c.contains("生日") || c.ends_with('了');
    ((5..=120).contains(&n) && said_age)
        .then(|| Extracted::personal(std::format!("年龄：{n}")).with("age", n.to_string()))
}

/// A number in digits or Chinese numerals (up to 99).
pub(crate) fn number(s: &str) -> Option<u32> {
    if !s.is_empty() && s.chars().all(|c| c.is_ascii_digit()) {
        return s.parse().ok();
    }
    let digit = |c: char| {
        "零一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|d| d as u32)
            .or(if c == '两' { Some(2) } else { None })
    };
    let chars: Vec<char> = s.chars().collect();
    match chars.as_slice() {
        ['十'] => Some(10),
        [d] => digit(*d),
        ['十', d] => Some(10 + digit(*d)?),
        [t, '十'] => Some(digit(*t)? * 10),
        [t, '十', d] => Some(digit(*t)? * 10 + digit(*d)?),
        _ => None,
    }
}

fn residence(_: &str, body: &str, _: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^([^，。住搬定生]{0,6}?)(?:住在|住|定居在|定居|生活在|搬到了?|搬去了?|搬来了?|家在)(.+)$").expect("valid")
    });
    let caps = re.captures(body)?;
    let gap = caps.get(1)?.as_str();
    if gap.contains(['不', '没', '别', '想', '要', '会']) {
        return None;
    }
    let place = value(caps.get(2)?.as_str());
    let place = place
        .trim_start_matches('在')
        .trim_end_matches("这边")
        .trim_end_matches("那边");
    let n = place.chars().count();
    ((1..=10).contains(&n) && !place.contains(['哪', '什']) && !place.contains("附近"))
        .then(|| Extracted::personal(std::format!("住在{place}")).with("residence", place))
}

/// 在阿里巴巴上班, 在腾讯做前端, 是做产品经理的, 跳槽到字节跳动.
fn work(body: &str) -> Option<Vec<Extracted>> {
    static AT: OnceLock<Regex> = OnceLock::new();
    static JOB: OnceLock<Regex> = OnceLock::new();
    static MOVE: OnceLock<Regex> = OnceLock::new();
    let at = AT.get_or_init(|| {
        Regex::new(r"^(?:现在|目前|一直|也|还|就)?在([^，。在]{1,12}?)(?:上班|工作|实习|任职|打工|做(.+)|当(.+)|担任(.+))$").expect("valid")
    });
    let job_re = JOB.get_or_init(|| {
        Regex::new(r"^(?:现在|目前|也|就)?(?:是|做|当)(?:一名|一个|个|名|位)?(?:做)?(.+?)(?:的)?$")
            .expect("valid")
    });
    let mv = MOVE.get_or_init(|| {
        Regex::new(r"^(?:刚|已经|上个月|上周|最近)?(?:跳槽到了?|跳槽去了?|入职了?|加入了?)([^，。]{1,12})$").expect("valid")
    });
    let mut out = Vec::new();
    let job_item = |j: &str| -> Option<Extracted> {
        let j = value(j);
        let j = j.trim_end_matches("工作").trim_end_matches("方面");
        is_occupation(j).then(|| Extracted::personal(std::format!("职业：{j}")).with("job", j))
    };
    if let Some(caps) = at.captures(body) {
        let employer = value(caps.get(1)?.as_str());
        if employer.chars().count() < 2 || employer.contains(['家', '哪']) || is_place(&employer)
        {
            return None;
        }
        out.push(Extracted::personal(std::format!("在{employer}工作")).with("employer", employer));
        if let Some(j) = caps.get(2).or_else(|| caps.get(3)).or_else(|| caps.get(4)) {
            out.extend(job_item(j.as_str()));
        }
        return Some(out);
    }
    if let Some(caps) = mv.captures(body) {
        let e = value(caps.get(1)?.as_str());
        out.push(Extracted::personal(std::format!("在{e}工作")).with("employer", e));
        return Some(out);
    }
    if let Some(j) = ["的工作是", "的职业是", "工作是", "职业是"]
        .iter()
        .find_map(|p| body.strip_prefix(p))
    {
        return job_item(j.trim_start_matches(['一', '名', '个'])).map(|j| std::vec![j]);
    }
    let caps = job_re.captures(body)?;
    job_item(caps.get(1)?.as_str()).map(|j| std::vec![j])
}

/// Major Chinese cities and provinces: "在深圳工作" says where, not for whom.
fn is_place(s: &str) -> bool {
    const PLACES: [&str; 40] = [
        "北京", "上海", "广州", "深圳", "杭州", "成都", "南京", "武汉", "西安", "重庆", "天津",
        "苏州", "长沙", "郑州", "青岛", "厦门", "大连", "沈阳", "济南", "合肥", "福州", "昆明",
        "宁波", "无锡", "东莞", "佛山", "香港", "台北", "澳门", "海外", "国外", "美国", "日本",
        "英国", "老家", "本地", "外地", "家里", "公司", "学校",
    ];
    PLACES
        .iter()
        .any(|p| s == *p || (s.starts_with(p) && s.chars().count() <= 4))
}

fn is_occupation(j: &str) -> bool {
    let n = j.chars().count();
    let english = j
        .split_whitespace()
        .last()
        .is_some_and(|w| super::lexicon::OCCUPATIONS.contains(&w.to_ascii_lowercase().as_str()));
    (1..=24).contains(&n)
        && (ZH_OCCUPATIONS.iter().any(|o| j.contains(o)) || english)
        && !j.contains(['不', '没', '吗', '人'])
}

fn allergy(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    let b = body.trim_start_matches(['有', '点', '也', '对']);
    let at = b.find("过敏").or_else(|| b.find("不耐"))?;
    let thing = b[..at]
        .trim_start_matches('对')
        .trim_end_matches(['有', '点', '会']);
    let thing = if thing.is_empty() && b[at..].starts_with("不耐") {
        "乳糖"
    } else {
        thing
    };
    let n = thing.chars().count();
    if !(1..=10).contains(&n) {
        return None;
    }
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("allergy", thing))
}

fn diet(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    let diets = [
        "吃素",
        "素食",
        "吃全素",
        "不吃肉",
        "吃清真",
        "清真",
        "戒糖",
        "生酮",
    ];
    let b = body.trim_start_matches(['是', '只', '一', '直', '平', '时', '都']);
    let d = diets.iter().find(|d| b.starts_with(*d))?;
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("diet", *d))
}

fn dislikes(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:也|就|从来|一直|平时|真的|基本|根本|完全|特别|很|最|超|非常)*(?:对.{1,8}?不感兴趣|不吃|不喝|不喜欢|不太喜欢|不怎么喜欢|不爱吃|不爱喝|不爱|不能吃|不能喝|不太能吃|不太能喝|吃不了|喝不了|不碰|不抽|从不吃|从不喝|从来不吃|从来不喝|讨厌|受不了|烦|反感|怕)(.+)$").expect("valid")
    });
    let thing = value(re.captures(body)?.get(1)?.as_str());
    if thing.is_empty() || thing.chars().count() > 12 || thing.starts_with(['你', '这', '那', '它'])
    {
        return None;
    }
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("dislikes", thing))
}

fn likes(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    if let Some(e) = interest(c, body, rest) {
        return Some(e);
    }
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:也|很|特别|超|最|真的|非常|超级|挺|比较|一直|就|还是|更|最近|又|重新|平时|周末|经常|一般|通常|蛮|巨|贼|都)*(?:喜欢|爱吃|爱喝|爱|偏爱|迷上了|迷上|热爱|钟爱|能吃|开始喝|开始吃|开始玩|开始练|开始听|开始)(.+)$").expect("valid")
    });
    let caps = re.captures(body)?;
    let thing = value(caps.get(1)?.as_str());
    if thing.is_empty() || thing.chars().count() > 12 || thing.starts_with(['你', '这', '那', '它'])
    {
        return None;
    }
    // 能吃辣: what is liked is the eating.
    let thing = if body.contains("能吃") {
        std::format!("吃{thing}")
    } else {
        thing
    };
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("likes", thing))
}

/// 我对摄影很感兴趣 / 我对股票不感兴趣.
fn interest(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    let b = body.strip_prefix('对')?;
    let at = b.find("感兴趣")?;
    let before = &b[..at];
    let negative = before.ends_with('不') || before.ends_with("没");
    let thing = before.trim_end_matches([
        '很', '特', '别', '挺', '不', '没', '也', '超', '蛮', '比', '较', '非', '常',
    ]);
    let thing = thing
        .trim_end_matches("非常")
        .trim_end_matches("比较")
        .trim_end_matches("特别");
    if thing.is_empty() || thing.chars().count() > 12 {
        return None;
    }
    let text = with_tail(c, rest, "，", is_statement);
    let relation = if negative { "dislikes" } else { "likes" };
    Some(Extracted::personal(text).with(relation, thing))
}

fn has(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(r"^(?:家|家里)?(?:有|养了|养着|养)([一两二三四五六七八九十几\d]+(?:只|条|个|头|匹)(?:猫|狗|孩子|娃|儿子|女儿|兔子|鹦鹉|仓鼠|鱼|龟|小猫|小狗|猫咪|狗狗))").expect("valid")
    });
    let thing = re.captures(body)?.get(1)?.as_str();
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("has", thing))
}

/// 我在清华读书: where the user studies.
fn school(c: &str, body: &str, rest: &[&str]) -> Option<Extracted> {
    static RE: OnceLock<Regex> = OnceLock::new();
    let re = RE.get_or_init(|| {
        Regex::new(
            r"^(?:现在|目前)?在([^，。在]{2,12}?)(?:读书|上学|读研|读博|念书|读大学|上大学|读本科)",
        )
        .expect("valid")
    });
    let place = re.captures(body)?.get(1)?.as_str();
    let text = with_tail(c, rest, "，", is_statement);
    Some(Extracted::personal(text).with("school", place))
}

/// 我是东北人, 我来自成都, 我老家是湖南的: where the user is from.
fn origin(c: &str, body: &str, _: &[&str]) -> Option<Extracted> {
    let from = body
        .strip_prefix("来自")
        .or_else(|| body.strip_prefix("老家是"))
        .or_else(|| body.strip_prefix("老家在"));
    if let Some(place) = from {
        let place = value(place);
        let n = place.chars().count();
        return (1..=8)
            .contains(&n)
            .then(|| Extracted::personal(c.trim()).with("origin", place));
    }
    let place = body.strip_prefix('是')?.strip_suffix('人')?;
    let n = place.chars().count();
    ((1..=6).contains(&n)
        && !place.contains([
            '个', '好', '坏', '一', '的', '大', '小', '男', '女', '老', '新', '外',
        ]))
    .then(|| Extracted::personal(c.trim()).with("origin", place))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rel(c: &str, first: bool) -> Vec<(String, String)> {
        clause(c, &[], first, c)
            .into_iter()
            .map(|e| (e.relation.unwrap_or_default(), e.object.unwrap_or_default()))
            .collect()
    }

    #[test]
    fn statements_and_non_statements() {
        assert_eq!(rel("我叫王磊", false), [("name".into(), "王磊".into())]);
        let greeted = clause("我是李雷", &[], false, "你好，我是李雷");
        assert_eq!(greeted[0].object.as_deref(), Some("李雷"));
        assert_eq!(
            rel("住在上海浦东", true),
            [("residence".into(), "上海浦东".into())]
        );
        assert!(rel("他住在上海浦东", false).is_empty());
        assert_eq!(
            rel("我们上个月搬到深圳了", false),
            [("residence".into(), "深圳".into())]
        );
        assert!(rel("我不住在北京", false).is_empty());
        assert!(rel("我妈住在广州", false).is_empty());
        assert!(rel("如果我搬到深圳", false).is_empty());
        assert_eq!(
            rel("我不吃香菜", false),
            [("dislikes".into(), "香菜".into())]
        );
        assert_eq!(
            rel("我在腾讯做前端", false),
            [
                ("employer".into(), "腾讯".into()),
                ("job".into(), "前端".into())
            ]
        );
        assert_eq!(rel("我今年28", false), [("age".into(), "28".into())]);
        assert_eq!(number("二十九"), Some(29));
    }
}
