//! Conversational statements in Chinese: what people tell each other about themselves in
//! chat (我上周去了…, 我最近在学…, 我们打算…), as items about the speaker.
//!
//! The same steps as the English rules ([`super::chat`]): no question (吗, 呢, 么, a question
//! mark), joke or address to the other person (你, 您); after openers (哇, 哈哈, 谢谢, 对了…)
//! and an opening time (昨天, 上周末), the subject is the speaker (我, 我们, 我和…, 我家…, 我
//! 的…); then a verb class ([`Class`]): an event (a verb with 了 or 过, or after a past time:
//! 去了, 参加了, 报名了), an ongoing activity (最近在…, 一直在…, 正在…), a plan (打算, 准备,
//! 计划, 想要, 要去), a lasting state (结婚了, 单身, 退休了), something had (我有…) or a liking
//! (喜欢, 爱, 热爱). Reactions (我也是, 我同意, 我觉得你…, 替你高兴), hedges (可能, 也许, 如果)
//! and pep talk (加油, 不会放弃) give nothing, nor does a statement with fewer than four Han
//! characters after its verb. The item is the sentence from its subject on, with its time's
//! date after it and 我 replaced by the speaker's name.

use super::chat::Speaker;
use super::chat_class::Class;
use super::text::laughs;
use super::{voice, when, Extracted};

/// Openers that carry nothing.
const OPENERS: &[&str] = &[
    "哇塞",
    "哇",
    "哈哈哈",
    "哈哈",
    "嘿嘿",
    "嗯嗯",
    "嗯",
    "哦",
    "噢",
    "啊",
    "诶",
    "欸",
    "嗨",
    "你好",
    "谢谢你",
    "谢谢",
    "多谢",
    "对了",
    "另外",
    "其实",
    "话说",
    "然后",
    "而且",
    "还有",
    "说真的",
    "跟你说",
    "告诉你",
    "是啊",
    "是的",
    "对啊",
    "对",
    "好的",
    "好",
    "没错",
    "真的",
    "最近",
    "这几天",
    "这段时间",
    "上次聊完之后",
    "自从上次聊天",
    "自从上次",
];

/// Words of a reply to the other person, not a statement about oneself.
const REACTIONS: &[&str] = &[
    "我也是",
    "我也这么",
    "我同意",
    "我懂",
    "我知道",
    "我明白",
    "我理解",
    "我相信你",
    "我觉得你",
    "我为你",
    "替你",
    "我很高兴你",
    "我真为你",
    "我支持你",
    "我猜",
    "我想你",
    "我希望你",
    "我好羡慕",
    "我羡慕",
    "我喜欢你",
    "我爱你",
    "我也想",
];

/// Opinions and musings: what the speaker thinks, not what they do.
const OPINIONS: &[&str] = &["我觉得", "我感觉", "我认为", "我想想", "我看", "我猜"];

/// Hedges and hypotheticals.
const HEDGES: &[&str] = &[
    "可能",
    "也许",
    "或许",
    "大概",
    "如果",
    "要是",
    "假如",
    "万一",
    "说不定",
];

/// Pep talk.
const PEP: &[&str] = &[
    "加油",
    "不会放弃",
    "不放弃",
    "一定可以",
    "一定能",
    "我们可以的",
    "没问题的",
];

/// (verb, class) in the order they are tried: the first found after the subject decides.
const VERBS: &[(&str, Class)] = &[
    ("打算", Class::Plan),
    ("准备", Class::Plan),
    ("计划", Class::Plan),
    ("想要", Class::Plan),
    ("决定", Class::Plan),
    ("下个月", Class::Plan),
    ("明年", Class::Plan),
    ("下周", Class::Plan),
    ("要去", Class::Plan),
    ("最近在", Class::Activity),
    ("一直在", Class::Activity),
    ("正在", Class::Activity),
    ("在学", Class::Activity),
    ("开始学", Class::Activity),
    ("坚持", Class::Activity),
    ("每天", Class::Habit),
    ("每周", Class::Habit),
    ("经常", Class::Habit),
    ("平时", Class::Habit),
    ("结婚", Class::Identity),
    ("离婚", Class::Identity),
    ("单身", Class::Identity),
    ("怀孕", Class::Identity),
    ("退休", Class::Identity),
    ("想去", Class::Plan),
    ("想学", Class::Plan),
    ("热爱", Class::Likes),
    ("喜欢", Class::Likes),
    ("爱", Class::Likes),
    ("迷上", Class::Likes),
];

/// The item one Chinese sentence states about its speaker, if it is a conversational
/// statement (see the module docs).
pub fn statement(sentence: &str, question: bool, who: &Speaker) -> Option<Extracted> {
    let s = sentence.trim();
    if question
        || laughs(s)
        || s.ends_with(['吗', '呢', '么', '吧'])
        || s.contains('你')
        || s.contains('您')
        || HEDGES.iter().any(|h| s.contains(h))
        || PEP.iter().any(|p| s.contains(p))
    {
        return None;
    }
    let mut body = s;
    loop {
        let before = body;
        for o in OPENERS {
            if let Some(rest) = body.strip_prefix(o) {
                body = rest.trim_start_matches(['，', ',', '！', '!', '。', ' ', '~', '～']);
            }
        }
        if let Some(t) = when::find(body, who.at).filter(|t| t.start == 0) {
            let rest = &body[t.end..];
            if rest.starts_with('我') || rest.starts_with('，') {
                body = rest.trim_start_matches(['，', ',', ' ']);
            }
        }
        if body == before {
            break;
        }
    }
    if !body.starts_with('我')
        || REACTIONS.iter().any(|r| body.starts_with(r))
        || OPINIONS.iter().any(|r| body.starts_with(r))
    {
        return None;
    }
    // The time, when one opened the sentence, stays in the item.
    let kept_from = s.find(body).unwrap_or(0);
    let opening = &s[..kept_from];
    let opening_time = when::find(opening, who.at).map(|t| &opening[t.start..t.end]);
    let (class, after) = VERBS
        .iter()
        .filter_map(|(v, c)| body.find(v).map(|at| (at, *c, at + v.len())))
        .min_by_key(|&(at, _, _)| at)
        .map(|(_, c, end)| (c, end))
        .or_else(|| has(body).map(|end| (Class::Has, end)))
        .or_else(|| event(body).map(|end| (Class::Event, end)))?;
    let said_after = &body[after..];
    // "我爱死这个了", "我喜欢那张照片": a liking of what is in front of them is a compliment.
    if class == Class::Likes && said_after.starts_with(['这', '那']) {
        return None;
    }
    let han = said_after
        .chars()
        .filter(|c| ('\u{4e00}'..='\u{9fff}').contains(c))
        .count();
    if han < 4 && class != Class::Identity {
        return None;
    }
    let text = match opening_time {
        Some(t) => std::format!("{t}{body}"),
        None => body.into(),
    };
    let text = voice::chinese(&when::resolve_chinese(&text, who.at), who.name);
    let mut e = Extracted::personal(text);
    e.confidence = class.confidence();
    e.class = Some(class);
    Some(e)
}

/// Where "我有" ends when it counts something had ("我有两只猫", "我家有一个女儿"), not a
/// question or a moment ("我有个问题", "我有点累").
fn has(body: &str) -> Option<usize> {
    let at = body.find('有')?;
    if at > '我'.len_utf8() * 2 {
        return None;
    }
    let rest = &body[at + '有'.len_utf8()..];
    let counted = rest.starts_with([
        '一', '两', '二', '三', '四', '五', '几', '个', '只', '条', '位', '套', '辆',
    ]);
    let moment = [
        "个问题",
        "一个问题",
        "点",
        "些",
        "空",
        "时间",
        "事",
        "一件事",
        "个事",
    ]
    .iter()
    .any(|m| rest.starts_with(m));
    (counted && !moment).then_some(at + '有'.len_utf8())
}

/// Where an event's verb ends: a verb followed by 了 or 过 within the first dozen characters
/// after the subject ("我去了…", "我们上周末参加了…").
fn event(body: &str) -> Option<usize> {
    let head: String = body.chars().take(12).collect();
    let at = head.find(['了', '过'])?;
    // "我累了", "我饿了": a state, not an event, when nothing follows.
    let end = at + '了'.len_utf8();
    (body[end..].chars().count() >= 3).then_some(end)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 8 May 2023, 13:56 UTC (a Monday).
    const AT: i64 = 1_683_554_160_000;

    fn said(s: &str) -> Option<String> {
        statement(
            s,
            false,
            &Speaker {
                name: "小林",
                at: AT,
            },
        )
        .map(|e| e.text)
    }

    #[test]
    fn chinese_events_plans_and_likings_name_the_speaker() {
        assert_eq!(
            said("我昨天去了一个读书会，收获很大").as_deref(),
            Some("小林昨天（2023年5月7日）去了一个读书会，收获很大")
        );
        assert_eq!(
            said("哇，我们打算下个月去云南自驾游").as_deref(),
            Some("小林他们打算下个月（2023年6月）去云南自驾游")
        );
        assert_eq!(
            said("我最近在学弹钢琴").as_deref(),
            Some("小林最近在学弹钢琴")
        );
        assert_eq!(
            said("我家有两只猫，一只叫团子").as_deref(),
            Some("小林家有两只猫，一只叫团子")
        );
    }

    #[test]
    fn chinese_replies_and_hedges_state_nothing() {
        for s in [
            "我也是",
            "你最近怎么样",
            "我觉得你说得对",
            "我可能会去看看",
            "加油，我们一定可以的",
            "我累了",
            "我有个问题想问一下",
            "我爱死这个了哈哈",
        ] {
            assert_eq!(said(s), None, "{s}");
        }
    }
}
