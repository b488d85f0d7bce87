import { createAskUserTool, createInteractionService } from 'ask-engine';
import { createTerminalProvider } from 'ask-engine/terminal';

const service = createInteractionService();
const terminal = createTerminalProvider(); // reads the settings file now; a bad one throws
service.registerProvider(terminal);
const tool = createAskUserTool(service);
// Each ask's UI has closed (summary drawn, terminal restored) before its outcome arrives.
const result = await tool.execute('call-1', { question: 'Deploy now?', options: ['Yes', 'No'] });
console.log(result.details.status); // without a terminal: cancelled (unavailable), never a guess
await service.close();
