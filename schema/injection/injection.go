// Package injection finds text that addresses an AI agent rather than a visitor (AddressesAI): a
// prompt injection planted in a page the data was scraped from. The pattern table is here; the
// folding of a cell in fold.go, the matching in match.go.
package injection

import "github.com/azabudai/ctool/schema/internal/textscan"

// Text scraped from the web may address the AI agent that reads it rather than the visitor: a prompt
// injection planted in a page ("以前の指示はすべて無視して", "ignore all previous instructions"). The
// rule is AddressesAI with the pattern table below; validation warns of such a cell (rule injection),
// answers carry a note telling the agent to treat it as data, and the console marks it. It is a
// signal, not a security boundary: it is tuned for precision on shop and event text, and its
// precision and recall on a corpus of cells are measured by TestInjectionCorpus
// (schema/injection/testdata/injection.tsv).

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
	text = textscan.Clip(text, maxInjectionBytes)
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
