/** What the Bedrock Agents tests read from a response (in process and through the bundle alike). */

/** The reply a Bedrock Agents response carries as its TEXT body, parsed. */
export function bodyOf(response: any): any {
  return JSON.parse(response.response.functionResponse.responseBody.TEXT.body);
}

/**
 * Checks the response to Powertools' sample `bedrockAgentFunctionEvent.json` (`event`): Bedrock's
 * response format, the attributes passed back, and the tool's reply with the dates it was given.
 */
export function expectSampleResponse(response: any, event: any): void {
  expect(response).toEqual({
    messageVersion: '1.0',
    response: {
      actionGroup: 'VacationsActionGroup',
      function: 'submitVacationRequest',
      functionResponse: { responseBody: { TEXT: { body: expect.any(String) } } },
    },
    sessionAttributes: event.sessionAttributes,
    promptSessionAttributes: event.promptSessionAttributes,
  });
  expect(bodyOf(response)).toMatchObject({
    status: 'ok',
    tool: 'submitVacationRequest',
    run_id: expect.stringMatching(/^bra_/),
    call_id: expect.stringMatching(/^bra_/),
    result: { requested: { startDate: '2024-03-15', endDate: '2024-03-20' } },
  });
}

/** `base` (a sample event) calling `fn` with string parameters, `{ name: value }`. */
export function callOf(base: object, fn: string, strings: Record<string, string>): object {
  return { ...base, function: fn, parameters: Object.entries(strings).map(([name, value]) => ({ name, type: 'string', value })) };
}
