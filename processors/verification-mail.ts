/** The verification e-mail. The link is the only place the clear token ever appears. */
export const verificationMail = (input: { readonly to: string; readonly link: string; readonly expiresAt: string }) => ({
  to: input.to,
  subject: 'Confirm your e-mail address',
  text: [
    'Welcome to Scrapeworks.',
    '',
    'Confirm your e-mail address by opening this link:',
    '',
    input.link,
    '',
    `The link works once and expires at ${input.expiresAt}.`,
    'If you did not create an account, ignore this message.',
    '',
  ].join('\n'),
})
