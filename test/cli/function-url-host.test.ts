/** The local function-URL stand-in: it must refuse what the real URL refuses and shape events as the real URL does. */
import { startFunctionUrlHost } from '../support/function-url-host';
import { functionUrlContract } from './function-url-contract';

functionUrlContract(startFunctionUrlHost, 'x-test-forbidden-reason');
