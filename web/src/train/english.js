/* train/english.js - the Train view's English sample: eight of Shakespeare's sonnets (18, 29, 30,
   55, 73, 104 and 116 to train on, 130 held out), from the 1609 Quarto in modern spelling, in the
   public domain. One line of verse per line. */
const SONNETS = [
  // 18
  'Shall I compare thee to a summer\'s day?', 'Thou art more lovely and more temperate:',
  'Rough winds do shake the darling buds of May,', 'And summer\'s lease hath all too short a date;',
  'Sometime too hot the eye of heaven shines,', 'And often is his gold complexion dimm\'d;',
  'And every fair from fair sometime declines,', 'By chance or nature\'s changing course untrimm\'d;',
  'But thy eternal summer shall not fade,', 'Nor lose possession of that fair thou ow\'st;',
  'Nor shall Death brag thou wander\'st in his shade,', 'When in eternal lines to time thou grow\'st:',
  'So long as men can breathe or eyes can see,', 'So long lives this, and this gives life to thee.',
  // 29
  'When, in disgrace with fortune and men\'s eyes,', 'I all alone beweep my outcast state,',
  'And trouble deaf heaven with my bootless cries,', 'And look upon myself and curse my fate,',
  'Wishing me like to one more rich in hope,', 'Featured like him, like him with friends possess\'d,',
  'Desiring this man\'s art and that man\'s scope,', 'With what I most enjoy contented least;',
  'Yet in these thoughts myself almost despising,', 'Haply I think on thee, and then my state,',
  'Like to the lark at break of day arising', 'From sullen earth, sings hymns at heaven\'s gate;',
  'For thy sweet love remember\'d such wealth brings', 'That then I scorn to change my state with kings.',
  // 30
  'When to the sessions of sweet silent thought', 'I summon up remembrance of things past,',
  'I sigh the lack of many a thing I sought,', 'And with old woes new wail my dear time\'s waste:',
  'Then can I drown an eye, unused to flow,', 'For precious friends hid in death\'s dateless night,',
  'And weep afresh love\'s long since cancell\'d woe,', 'And moan the expense of many a vanish\'d sight:',
  'Then can I grieve at grievances foregone,', 'And heavily from woe to woe tell o\'er',
  'The sad account of fore-bemoaned moan,', 'Which I new pay as if not paid before.',
  'But if the while I think on thee, dear friend,', 'All losses are restored and sorrows end.',
  // 55
  'Not marble, nor the gilded monuments', 'Of princes, shall outlive this powerful rhyme;',
  'But you shall shine more bright in these contents', 'Than unswept stone besmear\'d with sluttish time.',
  'When wasteful war shall statues overturn,', 'And broils root out the work of masonry,',
  'Nor Mars his sword nor war\'s quick fire shall burn', 'The living record of your memory.',
  '\'Gainst death and all-oblivious enmity', 'Shall you pace forth; your praise shall still find room',
  'Even in the eyes of all posterity', 'That wear this world out to the ending doom.',
  'So, till the judgment that yourself arise,', 'You live in this, and dwell in lovers\' eyes.',
  // 73
  'That time of year thou mayst in me behold', 'When yellow leaves, or none, or few, do hang',
  'Upon those boughs which shake against the cold,', 'Bare ruin\'d choirs, where late the sweet birds sang.',
  'In me thou see\'st the twilight of such day', 'As after sunset fadeth in the west,',
  'Which by and by black night doth take away,', 'Death\'s second self, that seals up all in rest.',
  'In me thou see\'st the glowing of such fire', 'That on the ashes of his youth doth lie,',
  'As the death-bed whereon it must expire,', 'Consumed with that which it was nourish\'d by.',
  'This thou perceivest, which makes thy love more strong,', 'To love that well which thou must leave ere long.',
  // 104
  'To me, fair friend, you never can be old,', 'For as you were when first your eye I eyed,',
  'Such seems your beauty still. Three winters cold', 'Have from the forests shook three summers\' pride,',
  'Three beauteous springs to yellow autumn turn\'d', 'In process of the seasons have I seen,',
  'Three April perfumes in three hot Junes burn\'d,', 'Since first I saw you fresh, which yet are green.',
  'Ah! yet doth beauty, like a dial-hand,', 'Steal from his figure and no pace perceived;',
  'So your sweet hue, which methinks still doth stand,', 'Hath motion and mine eye may be deceived:',
  'For fear of which, hear this, thou age unbred;', 'Ere you were born was beauty\'s summer dead.',
  // 116
  'Let me not to the marriage of true minds', 'Admit impediments. Love is not love',
  'Which alters when it alteration finds,', 'Or bends with the remover to remove:',
  'O no! it is an ever-fixed mark', 'That looks on tempests and is never shaken;',
  'It is the star to every wandering bark,', 'Whose worth\'s unknown, although his height be taken.',
  'Love\'s not Time\'s fool, though rosy lips and cheeks', 'Within his bending sickle\'s compass come;',
  'Love alters not with his brief hours and weeks,', 'But bears it out even to the edge of doom.',
  'If this be error and upon me proved,', 'I never writ, nor no man ever loved.'
];
const HELD = [
  // 130
  'My mistress\' eyes are nothing like the sun;', 'Coral is far more red than her lips\' red;',
  'If snow be white, why then her breasts are dun;', 'If hairs be wires, black wires grow on her head.',
  'I have seen roses damask\'d, red and white,', 'But no such roses see I in her cheeks;',
  'And in some perfumes is there more delight', 'Than in the breath that from my mistress reeks.',
  'I love to hear her speak, yet well I know', 'That music hath a far more pleasing sound;',
  'I grant I never saw a goddess go;', 'My mistress, when she walks, treads on the ground:',
  'And yet, by heaven, I think my love as rare', 'As any she belied with false compare.'
];
export const ENGLISH = Object.freeze({ train: SONNETS.join('\n'), heldout: HELD.join('\n'),
  probe: 'Shall I compare thee to a summer\'s day?' });
