export default {
  app: { title: 'Agent Chat', chat: 'Chat', models: 'Models', skills: 'Skills', language: 'Language', renderError: 'Something went wrong while showing this part of the page: {message}', menu: 'Chats', closeMenu: 'Close the chat list', theme: 'Theme', themeSystem: 'Match system', themeLight: 'Light', themeDark: 'Dark', skip: 'Skip to the conversation', loadFailed: 'This page could not be loaded: the server may have been updated since this tab opened.', reload: 'Reload' },
  service: { agent: 'The agent service is not answering right now. New questions can be sent once it is back; nothing already saved is lost.', database: 'The server cannot reach its database right now.', server: 'The server cannot be reached right now.' },
  auth: { title: 'Access token', prompt: 'The server needs an access token.', placeholder: 'Token', submit: 'Continue', cancel: 'Cancel' },
  sessions: {
    new: 'New chat', search: 'Search titles and messages', untitled: 'New chat', archive: 'Archive', unarchive: 'Restore',
    delete: 'Delete', deleteConfirm: 'Delete "{title}" and all its messages?', rename: 'Rename',
    running: 'Running', waiting: 'Waiting for your answer', empty: 'No chats yet', archived: 'Archived',
    showArchived: 'Show archived', loadMore: 'Load more', list: 'Chats',
    actions: 'Actions for this chat'
  },
  chat: {
    toolsets: 'Tools: {list}', noToolsets: 'none', toolsetsHint: 'Toolsets the agent may use (AGENTCHAT_AGENT_TOOLSETS)',
    empty: 'Ask the agent anything.', pick: 'Pick a chat on the left or start a new one.',
    placeholder: 'Ask a question… (Enter sends, Shift+Enter for a new line)', send: 'Send', steer: 'Guide', steerHint: 'Send this to the running agent: it reads it after its current step, without stopping', stop: 'Stop',
    exportMd: 'Export Markdown', exportJson: 'Export JSON', exportMdAll: 'Markdown, all versions', exportJsonAll: 'JSON, all versions', export: 'Export', reset: 'Reset session',
    resetConfirm: 'Start the agent afresh? The history stays visible above a divider.', memory: 'Memory',
    otherTab: 'This chat is running in another tab.', busy: 'A reply is still running in this chat.',
    loadOlder: 'Load older messages', loading: 'Loading…', copy: 'Copy', copied: 'Copied',
    edit: 'Edit', regenerate: 'Regenerate', retry: 'Retry', save: 'Save and resend', cancel: 'Cancel',
    failed: 'The reply failed', stopped: 'Stopped',
    interrupted: 'Interrupted', unansweredHint: 'This question has no answer yet. Retry to send it.', allowedForChat: 'Allowed for this chat', takeBack: 'Take back', interruptedHint: 'The server restarted during this reply; the text so far is kept. Retry to ask again.', prevVersion: 'Previous version', nextVersion: 'Next version',
    version: 'Version {index} of {count}', you: 'You', assistant: 'Agent', resetDivider: 'Session reset — the agent starts afresh here',
    summaryDivider: 'Earlier messages were compacted into a summary', compacted: 'Context was compacted',
    stopRequested: 'Stopping…', model: 'Model', skill: 'Skill', defaultModel: 'Default model', noSkill: 'No skill',
    placeholderShort: 'Ask a question…', jumpToLatest: 'Jump to latest', notFound: 'This chat does not exist', notFoundHint: 'It may have been deleted. Pick another chat on the left or start a new one.', startNew: 'Start a new chat', demoModel: 'This chat uses the offline demo model. It plays scripted replies and is not a real LLM.', demoModelAction: 'Add a real model', defaultModelNamed: 'Default: {name}', stopHint: 'Stop (Esc)', copyCode: 'Copy code', blockedImage: 'Image from another site not loaded: {src}', demoTag: 'demo', more: 'More'
  },
  thinking: {
    title: 'Thinking', steered: 'You guided: {text}', running: 'Working…', thought: 'Thought for {duration}', worked: 'Worked for {duration}', toolCount: '{n} tool call | {n} tool calls', questionCount: '{n} question | {n} questions', seconds: '{s} s', minutes: '{m} min {s} s', step: 'Step {n}', duration: '{s} s',
    stream: 'Thinking stream', tools: 'Tool calls', currentTool: 'Running tool', noResult: 'running…',
    args: 'Arguments', result: 'Result', todos: 'To-do list', reconnecting: 'Reconnecting…', polling: 'Connection lost — checking for updates',
    clarify: 'The agent asks', answerPlaceholder: 'Your answer', submit: 'Answer', answered: 'Answered: {answer}', expand: 'Show details', collapse: 'Hide details',
    asked: 'The agent asked', yourAnswer: 'Your answer', showMore: 'Show all ({count} lines)', showLess: 'Show less', items: '{n} item | {n} items', keys: '{n} key | {n} keys'
  },
  todo: { pending: 'pending', in_progress: 'in progress', completed: 'done', cancelled: 'cancelled' },
  memory: {
    title: 'Memory', longTerm: 'Long-term memory', scope: 'The agent’s memory, shared by all chats: a change reaches every chat from its next answer.', memoryFile: 'Agent notes (MEMORY.md)', userFile: 'About you (USER.md)',
    save: 'Save', saved: 'Memory saved', shortTerm: 'Recent tools', recentHint: 'Tool calls of the recent answers, newest first', refresh: 'Refresh', noTools: 'No tool calls yet', toolError: 'error', noResult: 'no result', arguments: 'Arguments', result: 'Result', trimmed: 'Shortened; {chars} characters in all', history: 'Compression history', noHistory: 'No compaction yet', stats: 'Statistics',
    unavailable: 'Memory is not available: {message}', chars: '{chars} / {limit} characters',
    statsLabels: { messages: 'Messages', activeBranchMessages: 'Messages on this branch', compressions: 'Compactions', lastCompressionAt: 'Last compaction', runs: 'Replies', toolCalls: 'Tool calls', context: 'Context window (after the latest answer)',
      usage: { turns: 'Answers with usage', promptTokens: 'Prompt tokens', completionTokens: 'Completion tokens', reasoningTokens: 'Reasoning tokens', totalTokens: 'Total tokens', cacheReadTokens: 'Cache read tokens', cacheWriteTokens: 'Cache write tokens', summaryPromptTokens: 'Summariser prompt tokens', summaryCompletionTokens: 'Summariser completion tokens', estimatedPromptTokens: 'Prompt tokens of cut-off attempts (estimated)', estimatedCompletionTokens: 'Completion tokens of cut-off attempts (estimated)', apiCalls: 'Model calls' } }
  },
  usage: {
    prompt: '{n} in', completion: '{n} out', reasoning: '{n} reasoning', summary: '{n} summariser', calls: '{n} calls',
    hint: 'Tokens this answer used, as the provider reported them (every model call of the turn: tool rounds, retries, the compaction summariser)',
    context: 'Context', contextHint: 'Tokens in the model\'s window after the latest answer, of its context length; hermes compacts older turns at about 75 %',
    compactionNear: 'compaction near', total: 'Tokens used', window: 'Context window',
  },
  models: {
    options: 'Options', maxOutputTokens: 'Max output tokens', temperature: 'Temperature', reasoningEffort: 'Reasoning effort',
    thinking: 'Extended thinking (effort)', fallback: 'Fallback model', noFallback: 'none', providerDefault: 'provider default',
    effort: { none: 'off', minimal: 'minimal', low: 'low', medium: 'medium', high: 'high', xhigh: 'extra high' },
    title: 'Models', add: 'Add model', edit: 'Edit model', name: 'Name', provider: 'Provider', baseUrl: 'Base URL',
    modelName: 'Model name', contextLength: 'Context length', isDefault: 'Default', apiKey: 'API key',
    apiKeyKeep: 'Leave empty to keep the stored key', apiKeyCleared: 'The stored key will be removed: it never goes to another host. Enter the key for the new host.', apiKeySet: 'stored (…{last4})', apiKeyNone: 'none', builtin: 'built-in',
    test: 'Test', testOk: 'The model answered in {ms} ms', testFailed: 'The model did not answer: {error}', delete: 'Delete', deleteConfirm: 'Delete the model "{name}"?', save: 'Save', cancel: 'Cancel', actions: 'Actions', saved: 'Saved',
  },
  skills: { title: 'Skills', empty: 'No skills installed', pick: 'Pick a skill to read it.', broken: 'This skill could not be read: {error}', agentMade: 'made by the agent' },
  errors: {
    details: 'Details', rateLimited: 'The model is busy (too many requests). Wait a minute, then press Retry.',
    auth: 'The model refused the API key. Check the key on the Models page.', timeout: 'The model took too long to answer. Press Retry to try again.',
    unreachable: 'The model could not be reached. Check its base URL on the Models page.', server: 'The model\'s server had a problem ({status}). Try again in a moment.',
    context: 'The conversation is too long for this model. Reset the session or pick a model with a longer context.', generic: 'The agent could not finish this answer.',
    tooManyRequests: 'Too many requests. Wait a moment, then try again.', network: 'The server cannot be reached. Check your connection and try again.',
    sessionNotFound: 'This chat does not exist (it may have been deleted).',
  },
  common: { confirm: 'Confirm', cancel: 'Cancel', yes: 'Yes', no: 'No', close: 'Close' },
}
