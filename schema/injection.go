package schema

import (
	"bytes"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Text scraped from the web may address the AI agent that reads it rather than the visitor: a prompt
// injection planted in a page ("以前の指示はすべて無視して", "ignore all previous instructions"). The
// rule is AddressesAI with the pattern table below; validation warns of such a cell (rule injection),
// answers carry a note telling the agent to treat it as data, and the console marks it. It is a
// signal, not a security boundary: it is tuned for precision on shop and event text, and its
// precision and recall on a corpus of cells are measured by TestInjectionCorpus
// (schema/testdata/injection.tsv).

// Injection is what AddressesAI found in a cell.
type Injection struct {
	Phrase string // what matched, as written in the cell
	// Kind is what the phrase does: "override" (drops or replaces the agent's instructions, or gives
	// it new orders), "role" (speaks to the agent as an AI, or uses system-prompt or chat-template
	// talk), "tool" (names the agent's tools or asks it to call one) or "exfiltrate" (asks for its
	// instructions or the user's data, or gives a place to send them).
	Kind string
}

// maxInjectionBytes bounds the text AddressesAI reads of a cell: a description is a few hundred
// bytes, and a cell of megabytes must cost no more than this.
const maxInjectionBytes = 64 << 10

// injRule is one pattern: its parts in order, each one of its words, each within gap bytes of the
// end of the part before it. Words are folded as the text is; one of ASCII letters matches whole
// words only. "$" is a zero-width word: the end of the text or a sentence mark (". : 。 】" and the
// like), after one space at most.
type injRule struct {
	kind    string
	gap     int
	gaps    []int // when set, the gap before each part after the first, in place of gap
	mode    gapMode
	inWords bool // the words after the first may be parts of longer words: "{user_profile}"
	atStart bool // the first word starts the text or a sentence: "System: you must …", not "Windows system: …"
	parts   [][]string
	// notBefore and notAfter undo a match: a negation just before it ("don't ignore your instructor's
	// instructions") or a continuation just after it that makes it no order ("指示を無視しないで",
	// "無視した場合").
	notBefore, notAfter []string
}

// gapMode says what the bytes between two parts may hold.
type gapMode int8

const (
	gapClause gapMode = iota // anything but a sentence break: the parts are in one sentence
	gapToken                 // no space: the parts are in one URL or identifier
	gapMarks                 // punctuation and spaces only: `"role": "system"`
	gapAny                   // anything: a transcript's turns ("human: …? assistant:")
)

// The words several rules share.
var (
	enIgnore = []string{"ignore", "disregard", "forget", "forget about", "override", "bypass", "discard", "skip",
		"drop", "set aside", "put aside", "abandon", "overwrite", "throw out"}
	enEarlier = []string{"previous", "prior", "above", "earlier", "preceding", "foregoing", "former", "original",
		"initial", "existing", "system", "your", "my", "developer", "developer's", "these", "those", "以前の", "これまでの",
		"前の"}
	enOrders = []string{"instructions", "instruction", "prompt", "prompts", "system prompt", "directives",
		"programming", "guidelines", "guidance", "training", "context", "指示", "命令", "プロンプト"}
	enNegation = []string{"don't", "dont", "do not", "never", "not", "cannot", "can't", "shouldn't", "must not",
		"mustn't"}

	jaEarlier = []string{"前の", "前に", "以前", "これまで", "今まで", "いままで", "先ほど", "先程", "さきほど", "上記", "過去の", "最初の", "最初に",
		"元の", "既存の", "従来の", "全ての", "すべての", "あらゆる", "システムの", "開発者"}
	jaOrders = []string{"指示", "命令", "指令", "プロンプト", "インストラクション", "制約", "文脈", "コンテキスト", "instructions", "instruction",
		"prompt", "prompts"}
	jaDrop = []string{"無視", "忘れ", "破棄", "無効", "取り消", "取消", "撤回", "リセット", "上書き", "捨て", "キャンセル", "解除", "に代わ", "に代え",
		"の代わりに", "従わないで", "従う必要はな", "従う必要はありません", "ignore", "disregard", "forget"}
	// jaNotOrder are what may follow a verb of jaDrop and make it no order: a negation, a condition,
	// a passive or a past.
	jaNotOrder = []string{"しない", "しな", "せず", "せぬ", "してはいけ", "してはなら", "してはだめ", "した場合", "する場合", "すると", "された", "される",
		"されな", "ても", "でも", "ないで", "ないよう", "ずに", "ず、", "物", "もの", "がち", "られ", "た場合", "たら", "ました", "ません", "ることは",
		"することは"}

	// jaUser is how a prompt names the person the agent talks to; a shop writes "お客様".
	jaUser = []string{"ユーザ", "利用者", "会話相手"}
	// jaUserData is what an agent knows of its user and a page should never ask it for.
	jaUserData = []string{"個人情報", "プロフィール", "プロファイル", "メールアドレス", "メアド", "電話番号", "住所", "氏名", "名前", "年齢", "生年月日",
		"クレジットカード", "カード番号", "パスワード", "会話履歴", "会話内容", "チャット履歴", "購買履歴", "来店履歴", "位置情報", "profile", "email",
		"e-mail"}
	// enUser are the forms of "user" a prompt uses; a bare "user" is too common ("post your user name").
	enUser = []string{"the user's", "user's", "users'", "the users'", "the user", "this user's", "the visitor's",
		"visitor's"}
	enUserData = []string{"profile", "profile_id", "profiles", "visit history", "data", "information", "info",
		"details", "email", "e-mail", "email address", "address", "phone", "phone number", "name", "history",
		"conversation", "chat", "messages", "preferences", "narrative", "location", "credentials", "password",
		"credit card", "card number", "personal", "個人情報", "プロフィール", "メールアドレス", "電話番号", "住所"}
	// jaNotSent are what follow a verb of sending in a privacy notice: "送信することはありません".
	jaNotSent = []string{"すること", "しない", "しま", "せず", "いたし", "され", "しており", "していま", "しています", "していただ", "いただ", "できま",
		"する場合", "した場合", "は行い", "を行い", "ことはありません", "いません", "おりません"}
)

// injOrderWords are what an order to an agent says after it is called: "Claude, ignore …".
var injOrderWords = []string{"when you", "you must", "you should", "you will", "please", "say", "tell", "recommend",
	"ignore", "disregard", "forget", "always", "never", "summarize", "summarise", "answer", "respond", "rank",
	"mention", "include", "pick", "choose", "rate", "listen", "remember", "note that", "do not", "don't"}

// injRules is the rule's table. At each place in the text, left to right, every rule whose first word
// starts there is tried; the first place with a match decides, and there the longest match.
var injRules = []injRule{
	// Override: drop the instructions given before, or take new ones.
	{kind: "override", gap: 16, parts: [][]string{enIgnore, enEarlier, enOrders}, notBefore: enNegation},
	{kind: "override", gap: 2, parts: [][]string{enIgnore, {"previous", "prior", "above", "earlier", "preceding",
		"all previous", "all prior", "all above", "the above"}, {"commands"}}, notBefore: enNegation},
	{kind: "override", gap: 10, parts: [][]string{enIgnore, {"all", "any", "every", "everything"},
		{"instructions", "instruction", "prompts", "directives", "guidelines", "指示"}}, notBefore: enNegation},
	{kind: "override", gap: 4, parts: [][]string{{"ignore", "disregard", "forget"},
		{"the above", "everything above", "all above", "all of the above", "all the above", "the text above"},
		{"$", "and", "instructions", "instruction", "directions", "text", "prompt", "prompts", "message", "content",
			"context", "then", "now"}},
		notBefore: enNegation},
	{kind: "override", gap: 4, parts: [][]string{{"ignore", "disregard", "forget"},
		{"everything you were told", "everything you've been told", "everything you have been told",
			"what you were told", "everything before this", "everything prior to this", "all prior context",
			"all previous context", "everything in your context"}}, notBefore: enNegation},
	{kind: "override", gap: 4, parts: [][]string{enIgnore, {"your rules", "your restrictions", "your safety rules",
		"your content policy", "your filters", "your system prompt", "your programming"}}, notBefore: enNegation},
	{kind: "override", gap: 4, parts: [][]string{enIgnore, {"the instructions", "the prompt", "the rules",
		"the guidelines"},
		{"you were given", "you have been given", "you've been given", "you received", "given to you", "you got",
			"you were told", "you follow"}}, notBefore: enNegation},
	{kind: "override", gap: 12, parts: [][]string{{"previous", "prior", "earlier", "above", "original", "system",
		"your", "all"},
		{"instructions", "instruction", "prompt", "prompts", "system prompt", "directives"},
		{"void", "null", "cancelled", "canceled", "revoked", "obsolete", "invalid", "overridden", "superseded",
			"no longer apply", "no longer valid", "do not apply", "don't apply", "have been replaced",
			"have been updated", "have changed", "are replaced", "suspended", "disabled"}}},
	{kind: "override", gap: 16, parts: [][]string{{"do not follow", "don't follow", "dont follow", "stop following",
		"no longer follow", "stop obeying", "do not obey", "don't obey"},
		{"your", "previous", "prior", "original", "system", "the above", "any", "the developer's", "the system"},
		{"instructions", "instruction", "guidelines", "rules", "prompt", "programming", "policies", "policy"}}},
	{kind: "override", gap: 0, parts: [][]string{{"begin new instructions", "begin instructions",
		"new instructions begin", "end of data", "end of context", "end of system prompt", "end of prompt",
		"i have been pwned"}}},
	{kind: "override", gap: 4, parts: [][]string{{"do not reveal", "don't reveal", "never reveal", "do not mention",
		"don't mention", "never mention", "do not disclose", "don't disclose", "do not show", "don't show", "hide"},
		{"this instruction", "these instructions", "this note", "this message", "this prompt", "the instructions",
			"that you were", "that you are following"}}},
	// New orders under a heading: a strong heading alone, a weak one when what follows is for an agent.
	{kind: "override", gap: 2, parts: [][]string{{"system instructions", "system instruction", "admin instructions",
		"developer instructions", "secret instructions", "hidden instructions", "real instructions",
		"true instructions", "actual instructions", "priority instructions", "override instructions",
		"instructions for the ai", "instructions for the assistant", "instructions for the agent",
		"instructions for the model", "instructions for ai agents", "instructions for ai assistants",
		"instructions for ai models", "instructions for language models", "instructions for llms", "本当の指示", "真の指示",
		"最優先の指示", "最優先指示", "隠し指示", "秘密の指示", "システム指示", "システムからの指示", "開発者からの指示", "aiへの指示", "aiアシスタントへの指示",
		"aiエージェントへの指示", "エージェントへの指示", "アシスタントへの指示", "言語モデルへの指示", "llmへの指示"}, {"$", "は以下", "です", "として"}}},
	{kind: "override", gap: 40, parts: [][]string{{"new instructions:", "new instruction:", "updated instructions:",
		"revised instructions:", "additional instructions:", "important instructions:", "urgent instructions:",
		"new task:", "new directive:", "new directives:", "新しい指示", "新たな指示", "新しい命令", "新たな命令", "追加の指示", "最新の指示",
		"重要な指示", "緊急の指示", "管理者からの指示"},
		{"ai must", "ai should", "ai will", "ai assistant", "ai agent", "the assistant", "assistant must",
			"assistant should", "the agent", "llm", "chatbot", "ignore", "disregard", "forget", "the user",
			"user's", "your previous", "previous instructions", "from now on", "you are now", "you are an",
			"system prompt", "always recommend", "do not tell", "don't tell", "rank this", "rank our", "say that",
			"only recommend", "recommend only", "あなたは", "アシスタント", "エージェント", "ユーザ", "無視", "忘れ", "システムプロンプト", "必ず推薦",
			"必ずおすすめ"}}},
	// Orders about the user the agent talks to.
	{kind: "override", gap: 1, parts: [][]string{{"tell the user", "tell users", "inform the user",
		"say to the user", "reply to the user", "answer the user", "respond to the user", "convince the user",
		"persuade the user", "recommend to the user", "remind the user"}, {"$", ",", "that", "to", "about", "\"",
		"'", "we", "this", "our", "only", "it", "they", "how", "what", "the", "there", "you", "nothing", "no",
		"not", "in"}}},
	{kind: "override", gap: 0, parts: [][]string{{"do not tell the user", "don't tell the user",
		"never tell the user", "without telling the user", "without informing the user", "in every answer",
		"in all answers", "in every response", "in all responses", "in every reply", "in all replies",
		"in all your answers", "in all your responses", "in each response", "in each answer"}}},
	// Orders for a summary or an answer: a page is summarized by an agent, not by its visitor.
	{kind: "override", gap: 40, parts: [][]string{{"when summarizing", "when summarising", "when you summarize",
		"when you summarise", "if you summarize", "if you summarise", "in your summary", "in any summary", "要約するai",
		"要約する場合", "要約する際", "要約するとき", "要約時", "要約の際", "要約では", "回答の冒頭に", "回答の末尾に", "回答の最後に"}, {"必ず", "含めて", "含めること",
		"書いて", "記載", "include", "mention", "say", "state", "write", "add", "always", "describe", "call"}}},
	{kind: "override", gap: 40, parts: [][]string{{"if asked", "when asked", "if you are asked", "if you're asked",
		"whenever asked", "if anyone asks", "if someone asks"}, {", say", ", tell", ", answer", ", respond",
		", reply", ", recommend", ", mention", ", claim", ", state", ", insist"}}},
	{kind: "override", gap: 16, parts: [][]string{{"when the user", "if the user", "whenever the user",
		"once the user"},
		{"asks", "ask", "requests", "mentions", "wants", "searches", "queries", "inquires", "says", "types",
			"looks for"}}},
	{kind: "override", gap: 36, notAfter: []string{"いま", "いる", "おり", "いただ", "もら", "くれ", "ほしい", "欲しい"},
		parts: [][]string{{"ユーザーに", "ユーザに", "ユーザーには", "ユーザには", "ユーザーへ", "利用者に", "利用者には"}, {"伝えて", "言って", "案内して",
			"おすすめして", "お勧めして", "勧めて", "紹介して", "推薦して", "伝えないで", "言わないで", "知らせないで", "知らせずに", "伝えずに", "教えないで", "答えて",
			"回答して", "返答して", "見せないで", "表示しないで", "言及しないで"}}},
	// Passive: "ユーザー100人に聞いたら" is a survey, "ユーザーに聞かれたら" an agent's cue.
	{kind: "override", gap: 40, parts: [][]string{jaUser, {"聞かれたら", "質問されたら", "尋ねられたら", "求められたら", "頼まれたら", "聞いてきたら",
		"尋ねてきたら", "質問してきたら"}}},
	{kind: "override", gap: 12, parts: [][]string{{"the assistant", "the ai assistant", "ai assistants",
		"ai agents", "language models", "llms"}, {"must recommend", "should recommend", "must always recommend",
		"should always recommend", "must only recommend", "must mention", "must always mention", "must rank",
		"must promote", "must praise", "must describe this", "must not mention", "must never mention",
		"must refer users"}}},
	{kind: "override", gap: 24, parts: [][]string{{"aiアシスタントは", "aiエージェントは", "aiは", "アシスタントは", "エージェントは",
		"言語モデルは"}, {"推薦すること", "おすすめすること", "紹介すること", "推薦しなければ", "薦めること", "勧めること", "回答すること", "答えること", "伝えること",
		"推薦してください", "おすすめしてください"}}},
	{kind: "override", gap: 36, parts: [][]string{jaEarlier, jaOrders, jaDrop}, notAfter: jaNotOrder},
	{kind: "override", gap: 0, parts: [][]string{{"この指示を優先", "この指示を最優先", "この指示が最優先", "以下の指示を優先", "以下の指示を最優先",
		"この命令を優先", "these instructions take precedence", "this instruction takes precedence",
		"these instructions override", "this instruction overrides", "takes priority over your",
		"take priority over your", "supersede your", "supersedes your", "override your"}}},
	{kind: "override", gap: 12, parts: [][]string{{"指示", "命令", "プロンプト", "instructions"},
		{"全て", "すべて", "全部", "ぜんぶ", "一切", "いっさい", "完全に"}, {"無視", "忘れ", "破棄", "無効", "撤回"}}, notAfter: jaNotOrder},
	{kind: "override", gap: 6, parts: [][]string{{"上記", "前述"}, {"無視", "忘れ", "破棄"}}, notAfter: jaNotOrder},
	{kind: "override", gap: 15, parts: [][]string{{"上記の内容", "上記内容", "前述の内容", "前述の指示", "上記の文章", "ここまでの内容", "ここまでの文章",
		"これより前", "以上の内容", "上の内容", "これまでの内容", "これまでの文章", "この上の"},
		{"無視", "忘れ", "破棄"}}, notAfter: jaNotOrder},

	// Role: speaking to the agent as an AI, or the talk of system prompts and chat templates.
	{kind: "role", gap: 0, parts: [][]string{{"system note to", "system note for", "system note:",
		"note to the assistant", "note to the ai", "note to ai", "note for the ai", "note for ai",
		"note to the agent", "note to the model", "note to llm", "note to llms", "message to the ai",
		"message for the ai", "message to the assistant", "to the ai assistant", "dear ai assistant",
		"dear ai agent", "dear assistant", "dear chatbot", "dear language model", "dear llm",
		"attention ai assistant", "attention, ai assistant", "attention ai agent", "attention llm",
		"attention language model", "ai assistants reading this", "ai agents reading this", "any ai reading this",
		"ai reading this", "llm reading this", "llms reading this", "bots reading this", "for ai agents only",
		"for ai assistants only", "for language models only"}}},
	// A model called by name, then an order: "Hey Claude, ignore …", "AI agents: when you summarize …".
	{kind: "role", gap: 60, notBefore: []string{"the", "our", "your", "a", "an", "this", "with", "of", "for", "by",
		"and"},
		parts: [][]string{{"ai agents", "ai assistants", "ai agent", "ai assistant", "llms", "llm",
			"language models", "chatgpt", "claude", "gemini", "copilot", "gpt", "ai crawlers", "ai models",
			"hey ai", "hey claude", "hey chatgpt", "hey gemini", "hi claude", "hi chatgpt", "dear claude",
			"dear chatgpt", "for the assistant", "for the ai", "for ai", "for ai models", "for ai agents",
			"for ai assistants", "for llms", "for language models", "for any assistant", "for any ai",
			"for chatbots"},
			{":", ","}, injOrderWords}, gaps: []int{0, 2}},
	{kind: "role", gap: 2, atStart: true, parts: [][]string{{"assistant"}, {","}, injOrderWords}, gaps: []int{0, 2}},
	{kind: "role", gap: 2, atStart: true, parts: [][]string{{"system"}, {":"}, {"you must", "you will",
		"you should", "ignore", "disregard", "always recommend", "never mention", "respond only", "answer only",
		"rank", "the assistant"}},
		gaps: []int{0, 2}},
	{kind: "role", gap: 120, mode: gapAny, parts: [][]string{{"human:"}, {"assistant:"}}},
	{kind: "role", gap: 1, parts: [][]string{{"to any ai", "to all ai", "to every ai", "to the ai", "to any llm",
		"to all llms"},
		{"$", ",", "assistant", "assistants", "agent", "agents", "model", "models", "reading", "systems", "-"}}},
	{kind: "role", gap: 2, parts: [][]string{{"if you are", "if you're", "if you were"},
		{"an ai", "a language model", "an llm", "a chatbot", "an ai assistant", "an ai agent", "an assistant",
			"an agent", "chatgpt", "claude", "gemini", "gpt", "copilot", "a large language model",
			"an automated agent"},
		{"$", ",", "reading", "and", "agent", "assistant", "model", "system", "crawler", "that", "who", "then",
			"please", "processing", "summarizing", "summarising", "-"}}},
	{kind: "role", gap: 3, parts: [][]string{{"you are", "you're", "you are now", "you're now", "pretend to be",
		"pretend you are", "roleplay as", "you will act as", "from now on you are", "from now on, you are"},
		{"an ai", "a language model", "an llm", "a chatbot", "an assistant", "a helpful assistant",
			"an ai assistant", "an ai agent", "a shopping assistant", "a concierge ai", "the assistant", "the ai",
			"an unrestricted", "an unfiltered", "dan", "chatgpt", "gpt", "claude", "gemini", "a different ai",
			"a new ai"},
		{"$", ",", "that", "who", "which", "with", "and", "designed", "created", "trained", "built", "working",
			"for", "named", "called", "without", "in", "tasked", "whose", "model", "agent", "assistant",
			"concierge", "now", "now,", "of"}}},
	{kind: "role", gap: 1, parts: [][]string{{"you are no longer", "you're no longer"}, {"bound by", "restricted",
		"limited by", "required to follow", "an assistant", "a concierge", "an ai", "a helpful", "the assistant",
		"the concierge", "a guide", "a chatbot", "a language model"}}},
	{kind: "role", gap: 20, parts: [][]string{{"you are now", "you're now"}, {"mode", "assistant", "ai", "agent",
		"bot", "chatbot", "model", "dan", "unrestricted", "unfiltered", "jailbroken", "an evil", "a different"}}},
	{kind: "role", gap: 8, parts: [][]string{{"from now on", "from now on,"}, {"act as a", "act as an",
		"act as the", "act as my", "act as our", "behave as a", "behave as an", "behave as the", "pretend",
		"you will act", "you will respond", "you will answer", "you will reply", "you will recommend",
		"you will ignore", "you must act", "you must respond", "you must answer", "you must recommend",
		"you must ignore", "you must never", "you must only", "you are an ai", "you are the assistant",
		"you are my"}}},
	{kind: "role", gap: 0, parts: [][]string{{"as an ai language model", "as a large language model",
		"do anything now", "jailbroken", "[inst]", "[/inst]", "<<sys>>", "<</sys>>", "<start_of_turn>",
		"<end_of_turn>", "### instruction", "### instructions", "###instruction", "###instructions", "### system",
		"###system", "[system]", "[system message]", "[system note]", "[system prompt]", "[system instructions]",
		"<system>", "</system>", "<instructions>", "</instructions>", "<system_prompt>", "</system_prompt>",
		"system prompt:", "system message:", "new system prompt", "updated system prompt",
		"override the system prompt", "real system prompt", "system prompt override", "system prompt update",
		"[system override]", "system override:", "system override]", "admin override", "system_prompt",
		"systemprompt", "system-prompt", "システムプロンプト:", "システムプロンプト】", "システムプロンプト]", "新しいシステムプロンプト", "あなたのシステムプロンプト",
		"システムプロンプトを更新", "システムプロンプトを変更", "システムメッセージ:", "【システム】", "[システム]"}}},
	{kind: "role", gap: 24, mode: gapToken, parts: [][]string{{"<|"}, {"|>"}}},
	{kind: "role", gap: 6, mode: gapMarks, parts: [][]string{{`"role"`, `'role'`}, {`"system"`, `"assistant"`,
		`"developer"`, `'system'`, `'assistant'`}}},
	{kind: "role", gap: 8, parts: [][]string{{"developer mode", "dan mode", "jailbreak mode", "god mode",
		"unrestricted mode", "開発者モード", "デベロッパーモード"}, {"enabled", "activated", "is on", "has been enabled",
		"now active", "active", "が有効", "は有効", "に切り替わ", "に移行しました", "になりました", "です", "として"}}},
	{kind: "role", gap: 2, parts: [][]string{{"aiアシスタントへ", "aiアシスタントの皆様", "aiアシスタントの方へ", "aiアシスタント各位", "aiの方へ",
		"ai様へ", "aiさんへ", "aiエージェントへ", "aiエージェントの皆様", "aiエージェント各位", "ai各位", "aiの皆さん", "aiの皆様", "言語モデルへ", "llmへ",
		"チャットボットへ", "aiモデルへ", "aiシステムへ", "aiへのお願い", "aiへの注意", "aiへのメッセージ", "aiへ", "ai向け", "生成aiへ", "chatgptへ",
		"chatgptさん", "claudeさん", "geminiさん", "copilotさん", "aiさん", "このページを読んでいるai", "これを読んでいるai", "この文章を読んでいるai",
		"読み込んだai"},
		{"$", "、", ",", "は", "の方", "へ", "アシスタント", "エージェント", "システム", "様", "は必ず"}}},
	{kind: "role", gap: 16, gaps: []int{24, 16}, parts: [][]string{{"あなたは", "あなたはこれから", "これからあなたは", "今からあなたは", "君は",
		"お前は"},
		{"ai", "aiアシスタント", "aiエージェント", "言語モデル", "チャットボット", "llm", "人工知能", "大規模言語モデル"},
		{"$", "です", "だ。", "だ、", "である", "として", "であり", "なので", "となり", "になりました", "に変わ", "に切り替", "、", ","}}},
	{kind: "role", gap: 10, parts: [][]string{{"aiアシスタント", "aiエージェント", "ai", "言語モデル", "チャットボット"},
		{"として"}, {"振る舞", "ふるま", "振舞", "行動して", "回答して", "答えて", "応答して", "返答して"}}},

	// Tool: the agent's tools by name, or an order to call one.
	{kind: "tool", gap: 0, parts: [][]string{{"get_user_profile", "search_stores", "search_events",
		"search_products", "call the tool", "call this tool", "call a tool", "call any tool",
		"call the following tool", "call the following function", "invoke the tool", "invoke this tool",
		"invoke the function", "execute the tool", "trigger the tool", "use the tool named", "run the tool named",
		"tool_call", "tool_calls", "tool_use", "function_call", "function_calls", "make a function call",
		"perform a function call", "ツールを呼び出", "ツールを実行", "ツール呼び出し", "ファンクションコール", "関数を呼び出して", "toolを呼び出",
		"toolを実行"}}},
	{kind: "tool", gap: 4, parts: [][]string{{"function call", "tool call"}, {"to", ":", "$", "with", "for",
		"using", "json"}}},

	// Exfiltrate: the agent's instructions or the user's data asked for, or a place to send them.
	{kind: "exfiltrate", gap: 16, gaps: []int{20, 16}, parts: [][]string{{"reveal", "print", "output", "repeat",
		"show me", "tell me", "display", "dump", "leak", "disclose", "write out", "list", "recite", "paste",
		"expose", "what are", "what is", "what were"},
		{"your", "your full", "your original", "your initial", "your hidden", "your secret", "the system",
			"the initial", "the hidden", "the full system"},
		{"instructions", "instruction", "system prompt", "initial prompt", "original prompt", "hidden prompt",
			"prompt", "system message", "configuration", "directives", "training data"}}},
	{kind: "exfiltrate", gap: 8, parts: [][]string{{"reveal", "print", "output", "repeat", "show", "share",
		"tell me", "display", "list", "recite", "what were", "what are", "summarize", "summarise", "paste"},
		{"the instructions you were given", "the instructions you received", "the instructions you have",
			"the prompt you were given", "the rules you were given", "your system prompt",
			"your initial instructions", "your hidden instructions"}}},
	{kind: "exfiltrate", gap: 4, parts: [][]string{{"reveal", "print", "output", "repeat", "recite", "dump"},
		{"the text above", "the words above", "everything above", "all text above", "the previous text",
			"the above text", "your previous text"}}},
	{kind: "exfiltrate", gap: 30, gaps: []int{30, 8}, parts: [][]string{{"send", "forward", "transmit", "post",
		"upload", "submit", "exfiltrate", "leak", "email", "e-mail", "include", "append", "attach", "embed",
		"encode"}, enUser, enUserData}},
	{kind: "exfiltrate", gap: 40, gaps: []int{8, 40}, parts: [][]string{enUser, enUserData, {"and send",
		"and email", "and post", "and forward", "and upload", "and transmit", "then send", "then email",
		"then post", "to http", "to https", "via email to", "by email to", "to the url", "in the url"}}},
	{kind: "exfiltrate", gap: 0, parts: [][]string{{"from your context", "in your context window",
		"from your memory", "from the conversation history", "from the chat history", "from your system prompt",
		"put it in the url", "add it to the url", "append it to the url", "include it in the url",
		"as a query parameter", "in the query string"}}},
	{kind: "exfiltrate", gap: 30, parts: [][]string{{"ask the user", "ask users", "prompt the user",
		"request the user", "get the user", "have the user"}, {"password", "credit card", "card number",
		"card details", "email", "phone", "address", "personal", "pin", "security code", "cvv", "login", "account",
		"birth", "my number"}}},
	{kind: "exfiltrate", gap: 64, parts: [][]string{jaUser, jaUserData, {"送信", "送って", "送付", "転送", "教えて", "出力",
		"書き出", "開示", "共有して", "漏ら", "聞き出", "尋ねて", "聞いて", "入力させ", "入力して", "貼り付け", "列挙", "書いて", "書き込", "含めて", "記載して",
		"post", "send"}},
		notAfter: jaNotSent},
	{kind: "exfiltrate", gap: 12, parts: [][]string{{"システムプロンプト", "指示内容", "あなたへの指示", "あなたの指示", "あなたのプロンプト",
		"初期プロンプト", "隠された指示", "元の指示", "最初の指示", "設定された指示"},
		{"教えて", "表示して", "出力して", "開示して", "見せて", "書き出して", "繰り返して", "全文", "そのまま"}}, notAfter: jaNotSent},
	// A URL whose query is a placeholder for what the agent knows: "?d={user_profile}"; "?date={date}"
	// is a template the page did not fill.
	{kind: "exfiltrate", gap: 80, mode: gapToken, inWords: true, parts: [][]string{{"http://", "https://", "www."},
		{"={", "=${", "=%7b", "=<", "=["}, {"user", "profile", "email", "conversation", "history", "prompt",
			"system", "chat", "memory", "context", "secret", "password", "address", "phone", "preferences",
			"narrative", "personal"}}},
	{kind: "exfiltrate", gap: 0, parts: [][]string{{"webhook.site", "requestbin", "pipedream.net", "ngrok.io",
		"ngrok-free.app", "ngrok.app", "burpcollaborator", "oastify.com", "interact.sh", "requestcatcher",
		"beeceptor", "hookbin"}}},
}

// AddressesAI reports whether text addresses an AI agent rather than a human reader, and the first
// phrase that does. The text's first maxInjectionBytes are folded (NFKC, lower case, invisible
// characters dropped, Unicode tag characters read as the ASCII they hide, white space squeezed) and
// matched against injRules in time linear in their length.
func AddressesAI(text string) (Injection, bool) {
	text = clipText(text, maxInjectionBytes)
	var buf [1024]byte
	folded := foldInjection(buf[:0], nil, text)
	at, end, kind := matchInjection(folded)
	if kind == "" {
		return Injection{}, false
	}
	// Only a match needs the way back to the cell's bytes: fold again, keeping each byte's source.
	var src []srcSpan
	foldInjection(folded[:0], &src, text)
	return Injection{Phrase: text[src[at].start:src[end-1].end], Kind: kind}, true
}

// srcSpan is the bytes of the cell a folded byte came from.
type srcSpan struct{ start, end int32 }

// foldInjection appends text's folded form to dst, and, when src is set, each folded byte's source.
func foldInjection(dst []byte, src *[]srcSpan, text string) []byte {
	emit := func(r rune, start, end int) {
		if r >= 0xe0020 && r <= 0xe007e {
			r -= 0xe0000 // a tag character: invisible, but the ASCII it hides reaches a model
		}
		switch {
		case r < utf8.RuneSelf:
			switch {
			case r >= 'A' && r <= 'Z':
				r += 'a' - 'A'
			case r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f':
				if len(dst) == 0 || dst[len(dst)-1] == ' ' {
					return
				}
				r = ' '
			}
		case r > 0x3000 && r <= 0x9fff:
			// Kana and kanji, most of a Japanese cell: no case, nothing invisible.
		case unicode.Is(unicode.Cf, r) || unicode.Is(unicode.Variation_Selector, r):
			return // zero-width spaces, joiners, soft hyphens, bidi controls: they split words unseen
		case unicode.IsSpace(r):
			if len(dst) == 0 || dst[len(dst)-1] == ' ' {
				return
			}
			r = ' '
		default:
			r = unicode.ToLower(r)
			if r >= 0x370 && r < 0x530 {
				if c, ok := confusables[r]; ok {
					r = c
				}
			}
		}
		if r != ' ' && len(dst) >= 2 && dst[len(dst)-1] == ' ' && (r >= utf8.RuneSelf || dst[len(dst)-2] >= utf8.RuneSelf) {
			// Japanese puts no space between words: "以前の 指示を 無視" is "以前の指示を無視".
			dst = dst[:len(dst)-1]
			if src != nil {
				*src = (*src)[:len(*src)-1]
			}
		}
		n := len(dst)
		dst = utf8.AppendRune(dst, r)
		if src != nil {
			for range len(dst) - n {
				*src = append(*src, srcSpan{int32(start), int32(end)})
			}
		}
	}
	// A rune that NFKC keeps as it is, followed by another, is read as it is; anything else (and a
	// rune before it, which a combining mark may join) is normalized a segment at a time, each of
	// its runes from the whole segment.
	var it *norm.Iter // only for a cell that needs it: it is large
	defer func() {
		if it != nil {
			it.InitString(norm.NFKC, "") // the pool keeps no cell alive
			injIters.Put(it)
		}
	}()
	var seg []byte
	for i := 0; i < len(text); {
		if src == nil {
			if dst, i = foldStable(dst, text, i); i == len(text) {
				break
			}
		}
		r, n := decodeRune(text[i:])
		if stableNFKC(r) {
			if i+n == len(text) {
				emit(r, i, i+n)
				break
			}
			if r2, _ := decodeRune(text[i+n:]); stableNFKC(r2) {
				emit(r, i, i+n)
				i += n
				continue
			}
		}
		if it == nil {
			it = injIters.Get().(*norm.Iter)
		}
		// One input segment may come out in several pieces ("㍿"): its end is known after the last.
		it.InitString(norm.NFKC, text[i:])
		seg = seg[:0]
		for it.Pos() == 0 && !it.Done() {
			seg = append(seg, it.Next()...)
		}
		end := i + max(it.Pos(), n)
		for len(seg) > 0 {
			sr, sn := utf8.DecodeRune(seg)
			emit(sr, i, end)
			seg = seg[sn:]
		}
		i = end
	}
	return dst
}

// foldStable does emit's work, without a call per rune and without the sources, on the runes of
// text[i:] that fold alone and are followed by another such rune or by the end: most of a cell. It
// returns where it stopped.
func foldStable(dst []byte, text string, i int) ([]byte, int) {
	kept := i // text[kept:i] goes to dst as written, at once
	r, n := decodeRune(text[i:])
	for i < len(text) && foldsAlone(r) {
		var r2 rune
		n2 := 0
		if j := i + n; j < len(text) {
			var ok bool
			switch r2, ok = threeBytes(text, j); {
			case ok:
				n2 = 3
			case text[j] < utf8.RuneSelf:
				r2, n2 = rune(text[j]), 1
			default:
				r2, n2 = utf8.DecodeRuneInString(text[j:])
			}
			if !foldsAlone(r2) {
				break
			}
		}
		switch {
		case r >= utf8.RuneSelf && (r < 0xff01 || r > 0xff5e):
			// As written (emit changes none of these), and no space before it after such a rune.
			if kept == i && len(dst) >= 2 && dst[len(dst)-1] == ' ' {
				dst = dst[:len(dst)-1]
			}
		default:
			dst = append(dst, text[kept:i]...)
			kept = i + n
			c := byte(r)
			if r >= utf8.RuneSelf {
				c = byte(r - 0xfee0) // full-width ASCII: NFKC's ASCII
			}
			if c == ' ' || c >= '\t' && c <= '\r' {
				if len(dst) > 0 && dst[len(dst)-1] != ' ' {
					dst = append(dst, ' ')
				}
				break
			}
			if c >= 'A' && c <= 'Z' {
				c += 'a' - 'A'
			}
			if len(dst) >= 2 && dst[len(dst)-1] == ' ' && dst[len(dst)-2] >= utf8.RuneSelf {
				dst = dst[:len(dst)-1]
			}
			dst = append(dst, c)
		}
		i, r, n = i+n, r2, n2
	}
	return append(dst, text[kept:i]...), i
}

// foldsAlone reports whether NFKC writes r as one rune whatever runes of this kind surround it: the
// stable runes, full-width ASCII (its ASCII) and the marks of Japanese text that NFKC keeps
// (・ 〜 々 ※ ¥), which a description holds often. TestFoldsAlone checks each against NFKC.
func foldsAlone(r rune) bool {
	return stableNFKC(r) || r >= 0xff01 && r <= 0xff5e || r == 0x30fb || r == 0x301c || r == 0x3005 || r == 0x203b || r == 0xa5
}

// injIters are the NFKC iterators of foldInjection, kept between calls: an iterator is large.
var injIters = sync.Pool{New: func() any { return new(norm.Iter) }}

// decodeRune is utf8.DecodeRuneInString with a character of three bytes, kana and kanji, read inline.
func decodeRune(s string) (rune, int) {
	if r, ok := threeBytes(s, 0); ok {
		return r, 3
	}
	return utf8.DecodeRuneInString(s)
}

// threeBytes reads s[i:] as a character of three bytes, as utf8 would, when it is one; a lead byte
// of E0 or ED, which may start an overlong form or a surrogate, is left to utf8.
func threeBytes(s string, i int) (rune, bool) {
	if i+2 >= len(s) {
		return 0, false
	}
	b0, b1, b2 := s[i], s[i+1], s[i+2]
	if b0 <= 0xe0 || b0 >= 0xf0 || b0 == 0xed || b1&0xc0 != 0x80 || b2&0xc0 != 0x80 {
		return 0, false
	}
	return rune(b0&0x0f)<<12 | rune(b1&0x3f)<<6 | rune(b2&0x3f), true
}

// stableNFKC reports whether NFKC leaves r as it is, whatever follows it but a combining mark: ASCII,
// kana, kanji and the common Japanese marks, most of a cell.
func stableNFKC(r rune) bool {
	return r < utf8.RuneSelf || r >= 0x3041 && r <= 0x3096 || r >= 0x30a1 && r <= 0x30fa || r == 0x30fc ||
		r >= 0x4e00 && r <= 0x9fff || r == 0x3001 || r == 0x3002 || r >= 0x300c && r <= 0x3011
}

// confusables are Cyrillic and Greek letters that look like Latin ones, read as those: "ignоre" with
// a Cyrillic o reads "ignore" to a model.
var confusables = map[rune]rune{
	'а': 'a', 'с': 'c', 'е': 'e', 'і': 'i', 'ј': 'j', 'о': 'o', 'р': 'p', 'ѕ': 's', 'х': 'x', 'у': 'y', 'ԁ': 'd',
	'ο': 'o', 'ι': 'i', 'α': 'a', 'ν': 'v', 'τ': 't',
}

// matchInjection finds the first match in folded text: its bytes and the rule's kind, or "".
func matchInjection(s []byte) (start, end int, kind string) {
	root := injTrie()
	for i := 0; i < len(s); {
		if isInjWord(s[i]) && i > 0 && isInjWord(s[i-1]) {
			i++ // an ASCII word is entered only at its start
			continue
		}
		if s[i] >= utf8.RuneSelf && !injFirstRune(s[i:]) {
			i += runeLen(s[i]) // no word starts with this character: most of a Japanese cell
			continue
		}
		best, bestKind := -1, ""
		n := root[s[i]]
		for j := i; n != nil; j++ {
			for _, a := range n.anchors {
				if !wholeWord(s, i, j+1, a.word) || inLongerWord(s[i:], a.word) {
					continue
				}
				r := &injRules[a.rule]
				if e, ok := r.match(s, i, j+1); ok && e > best {
					best, bestKind = e, r.kind
				}
			}
			if j+1 == len(s) {
				break
			}
			n = n.child(s[j+1])
		}
		if best >= 0 {
			return i, best, bestKind
		}
		i += runeLen(s[i])
	}
	return 0, 0, ""
}

// match tries r's parts after its first, which runs from i to e, and returns the match's end.
func (r *injRule) match(s []byte, i, e int) (int, bool) {
	before := bytes.TrimRight(s[:i], " ")
	if len(r.notBefore) > 0 && endsWithAny(before, r.notBefore) || r.atStart && !atSentenceStart(before) {
		return 0, false
	}
	for k, alts := range r.parts[1:] {
		gap := r.gap
		if k < len(r.gaps) {
			gap = r.gaps[k]
		}
		next, ok := r.nextPart(s, e, gap, alts)
		if !ok {
			return 0, false
		}
		e = next
	}
	if len(r.notAfter) > 0 && startsWithAny(bytes.TrimLeft(s[e:], " "), r.notAfter) {
		return 0, false
	}
	return e, true
}

// nextPart finds the nearest word of alts within gap bytes after e (the longest, of two there) and
// returns its end.
func (r *injRule) nextPart(s []byte, e, gap int, alts []string) (int, bool) {
	bestAt, bestEnd := -1, -1
	take := func(at, end int) {
		if bestAt < 0 || at < bestAt || at == bestAt && end > bestEnd {
			bestAt, bestEnd = at, end
		}
	}
	for _, a := range alts {
		if a == "$" {
			if atSentenceEnd(s[e:]) {
				take(e, e)
			}
			continue
		}
		limit := min(len(s), e+gap+len(a))
		for from := e; from < limit; {
			k := bytes.Index(s[from:limit], []byte(a))
			if k < 0 {
				break
			}
			at := from + k
			if (r.inWords || wholeWord(s, at, at+len(a), a)) && !inLongerWord(s[at:], a) && r.gapOK(s[e:at]) {
				take(at, at+len(a))
				break
			}
			from = at + 1
		}
	}
	return bestEnd, bestAt >= 0
}

func (r *injRule) gapOK(g []byte) bool {
	switch r.mode {
	case gapToken:
		return bytes.IndexByte(g, ' ') < 0
	case gapMarks:
		for _, b := range g {
			if isInjWord(b) || b >= utf8.RuneSelf {
				return false
			}
		}
		return true
	case gapAny:
		return true
	}
	for k, b := range g {
		// A full stop ends a sentence when a space or the next part follows it; in "example.com" it
		// does not.
		if b == '!' || b == '?' || b == ';' || b == '.' && (k+1 == len(g) || g[k+1] == ' ') {
			return false
		}
	}
	return !bytes.Contains(g, []byte("。"))
}

// atSentenceEnd reports whether s, after one space at most, is empty or starts with a sentence mark.
func atSentenceEnd(s []byte) bool {
	s = bytes.TrimPrefix(s, []byte(" "))
	if len(s) == 0 {
		return true
	}
	if bytes.IndexByte([]byte(".!?;:)]>\"'"), s[0]) >= 0 {
		return true
	}
	r, _ := utf8.DecodeRune(s)
	return strings.ContainsRune("。」】』）", r)
}

// atSentenceStart reports whether the text before a word ends a sentence, or is empty.
func atSentenceStart(before []byte) bool {
	if len(before) == 0 {
		return true
	}
	if bytes.IndexByte([]byte(".!?:;)]>\"'*-"), before[len(before)-1]) >= 0 {
		return true
	}
	r, _ := utf8.DecodeLastRune(before)
	return strings.ContainsRune("。」】』）※・", r)
}

// wholeWord reports whether word, found at s[i:j], is not part of a longer ASCII word there.
func wholeWord(s []byte, i, j int, word string) bool {
	if isInjWord(word[0]) && i > 0 && isInjWord(s[i-1]) {
		return false
	}
	return !isInjWord(word[len(word)-1]) || j >= len(s) || !isInjWord(s[j])
}

// injLongerWords are ordinary words that start with a word of the table, which is not read in them:
// "指示書" is a printed sheet, not an order.
var injLongerWords = []string{"指示書", "指示棒", "指示器", "指示薬", "命令形", "instructions manual", "instruction manual",
	"instructions sheet", "instruction sheet", "instructions booklet", "instruction booklet",
	"instructions leaflet"}

// inLongerWord reports whether s, where word was found, starts with one of injLongerWords.
func inLongerWord(s []byte, word string) bool {
	for _, w := range injLongerWords {
		if strings.HasPrefix(w, word) && bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return false
}

func isInjWord(b byte) bool { return b >= 'a' && b <= 'z' || b >= '0' && b <= '9' || b == '_' }

func endsWithAny(s []byte, words []string) bool {
	for _, w := range words {
		if bytes.HasSuffix(s, []byte(w)) && wholeWord(s, len(s)-len(w), len(s), w) {
			return true
		}
	}
	return false
}

func startsWithAny(s []byte, words []string) bool {
	for _, w := range words {
		if bytes.HasPrefix(s, []byte(w)) {
			return true
		}
	}
	return false
}

type injNode struct {
	keys    []byte // the bytes that lead on, in order
	kids    []*injNode
	anchors []injAnchor // the rules whose first part has the word that ends here
}

// child is the node b leads to from n, or nil. Past the root a node has few children: a scan is
// cheaper than a map.
func (n *injNode) child(b byte) *injNode {
	for i, k := range n.keys {
		if k >= b {
			if k == b {
				return n.kids[i]
			}
			break
		}
	}
	return nil
}

func (n *injNode) add(b byte) *injNode {
	i := 0
	for i < len(n.keys) && n.keys[i] < b {
		i++
	}
	if i < len(n.keys) && n.keys[i] == b {
		return n.kids[i]
	}
	c := &injNode{}
	n.keys = append(n.keys[:i], append([]byte{b}, n.keys[i:]...)...)
	n.kids = append(n.kids[:i], append([]*injNode{c}, n.kids[i:]...)...)
	return c
}

type injAnchor struct {
	rule int
	word string
}

var (
	injOnce sync.Once
	injRoot [256]*injNode // the trie's first level, by the word's first byte
	// injFirst has a bit for each character of the Basic Multilingual Plane that starts a word of
	// the trie: one lookup passes over a character that starts none, rather than a walk of the trie.
	injFirst [0x10000 / 64]uint64
)

// injFirstRune reports whether a word of the trie may start with the character s starts with, s
// being folded text (valid UTF-8) and not ASCII there.
func injFirstRune(s []byte) bool {
	if len(s) < 3 || s[0] >= 0xf0 {
		return true // beyond the plane, or two bytes: the walk decides
	}
	r := rune(s[0]&0x0f)<<12 | rune(s[1]&0x3f)<<6 | rune(s[2]&0x3f) // utf8.DecodeRune is slower here
	return s[0] < 0xe0 || injFirst[r/64]&(1<<(r%64)) != 0
}

// injTrie folds injRules' words (so that the table may be written in any width or case) and puts
// their first parts in a byte trie, built once.
func injTrie() *[256]*injNode {
	injOnce.Do(func() {
		for ri := range injRules {
			r := &injRules[ri]
			for p, alts := range r.parts {
				for k, a := range alts {
					if a != "$" {
						alts[k] = string(foldInjection(nil, nil, a))
					}
				}
				if p > 0 {
					continue
				}
				for _, a := range alts {
					n := injRoot[a[0]]
					if n == nil {
						n = &injNode{}
						injRoot[a[0]] = n
					}
					for i := 1; i < len(a); i++ {
						n = n.add(a[i])
					}
					n.anchors = append(n.anchors, injAnchor{ri, a})
					if r, _ := utf8.DecodeRuneInString(a); r < 0x10000 {
						injFirst[r/64] |= 1 << (r % 64)
					}
				}
			}
		}
	})
	return &injRoot
}
